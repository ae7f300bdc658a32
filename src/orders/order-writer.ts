import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { preparedQuery } from '../database/prepared-query.js';
import { AppError } from '../common/errors/app-error.js';
import { requireTenant } from '../common/tenant-scope.js';
import { legacyTenantSql } from '../database/sql/db.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import { OutboxRepository } from '../outbox/outbox.repository.js';
import { toOrderDto } from './order.mapper.js';
import { SEED_ORDER_BATCH_SQL } from './seed-order-batch.js';
import { INITIAL_ORDER_STATUS } from './order-status.js';
import type { ItemRow, OrderRow } from './orders.repository.js';
import type { PricedLine } from './pricing.js';

/**
 * How the order finds its customer: `id` must be a customer of the tenant (else 422
 * unknown_customer); `id-or-email` takes the id when it is one, else the customer with the
 * email (marketplace imports); `email` links by email only. By email, only a customer whose
 * email is verified: registering someone else's address must never show you their orders.
 */
export type CustomerLink =
  | { kind: 'id'; id: number }
  | { kind: 'id-or-email'; id: number; email: string }
  | { kind: 'email'; email: string };

export interface OrderDraft {
  tenantId: number;
  customer: { name: string; email: string; phone?: string | null };
  link: CustomerLink;
  shipping: {
    country: string;
    city: string;
    district?: string | null;
    address: string;
    postal_code?: string | null;
  };
  lines: PricedLine[];
  totalMinor: number;
  source: 'api' | 'marketplace';
  marketplace?: string | null;
  externalOrderId?: string | null;
  appId: number | null;
}

/** What one `seed orders` batch writes (seed-order-batch.ts). */
export interface SeedBatch {
  tenantId: number;
  count: number;
  /** `created_at` falls within this many days before now. */
  days: number;
  /** Verified customers of the tenant that a share of the orders belong to. */
  customers: Array<{ id: number; name: string; email: string }>;
  /** The share of orders linked to one of `customers` (0–1). */
  linkedShare: number;
  /** Orders of the seed written before this batch, and in all: times rise across batches. */
  offset: number;
  total: number;
}

export interface WrittenOrder {
  order: OrderRow;
  items: ItemRow[];
}

/** PostgreSQL's name for the orders → customers foreign key. */
const CUSTOMER_FOREIGN_KEY = 'orders_tenant_id_customer_id_fkey';

/**
 * The one place orders are written (API create, marketplace import, seed). In the caller's
 * transaction: one statement for the customer link, the tenant's currency, the order and its
 * lines (the database's triggers count it, order-counts.ts), then its `order.created` event.
 */
@Injectable()
export class OrderWriter {
  constructor(private readonly events: OutboxRepository) {}

  async write(m: EntityManager, draft: OrderDraft): Promise<WrittenOrder> {
    requireTenant(draft.tenantId);
    const { link } = draft;
    let written: WrittenOrder;
    try {
      const rows = await preparedQuery<{ order: Record<string, unknown>; items: ItemRow[] }>(
        m,
        `WITH linked AS (
           SELECT CASE $2::text
             WHEN 'id' THEN $3::bigint
             WHEN 'id-or-email' THEN COALESCE(
               (SELECT id FROM customers WHERE tenant_id = $1 AND id = $3::bigint),
               (SELECT id FROM customers
                WHERE tenant_id = $1 AND lower(email) = lower($4) AND email_verified))
             ELSE (SELECT id FROM customers
                   WHERE tenant_id = $1 AND lower(email) = lower($4) AND email_verified)
           END AS customer_id),
         o AS (
           INSERT INTO orders (tenant_id, currency, total_minor, customer_id, customer_name,
             customer_email, customer_phone, shipping_country, shipping_city, shipping_district,
             shipping_address, shipping_postal_code, source, marketplace, external_order_id,
             app_id, status)
           SELECT $1, t.currency, $5, linked.customer_id, $6, $7, $8, $9, $10, $11, $12, $13,
             $14, $15, $16, $17, $18
           FROM tenants t, linked WHERE t.id = $1
           RETURNING *),
         i AS (
           INSERT INTO order_items (tenant_id, order_id, line_no, product_id, sku, name,
             quantity, unit_price_minor, total_minor)
           SELECT o.tenant_id, o.id, l.line_no, l.product_id, l.sku, l.name, l.quantity,
             l.unit_price, l.total
           FROM o, unnest($19::smallint[], $20::bigint[], $21::text[], $22::text[], $23::int[],
             $24::bigint[], $25::bigint[]) AS l(line_no, product_id, sku, name, quantity, unit_price, total)
           RETURNING order_id, line_no, product_id, sku, name, quantity, unit_price_minor, total_minor)
         SELECT row_to_json(o) AS order,
           (SELECT json_agg(i ORDER BY i.line_no) FROM i) AS items
         FROM o`,
        [
          draft.tenantId,
          link.kind,
          link.kind === 'email' ? null : link.id,
          link.kind === 'id' ? null : link.email,
          draft.totalMinor,
          draft.customer.name,
          draft.customer.email,
          draft.customer.phone ?? null,
          draft.shipping.country,
          draft.shipping.city,
          draft.shipping.district ?? null,
          draft.shipping.address,
          draft.shipping.postal_code ?? null,
          draft.source,
          draft.marketplace ?? null,
          draft.externalOrderId ?? null,
          draft.appId,
          INITIAL_ORDER_STATUS,
          draft.lines.map((_, i) => i + 1),
          draft.lines.map((l) => l.productId),
          draft.lines.map((l) => l.sku),
          draft.lines.map((l) => l.name),
          draft.lines.map((l) => l.quantity),
          draft.lines.map((l) => l.unitPriceMinor),
          draft.lines.map((l) => l.totalMinor),
        ],
      );
      const row = rows[0];
      if (!row) throw new Error(`tenant ${draft.tenantId} does not exist`);
      written = { order: fromJson(row.order), items: row.items };
    } catch (error) {
      if (
        link.kind === 'id' &&
        (error as { constraint?: string }).constraint === CUSTOMER_FOREIGN_KEY
      ) {
        throw unknownCustomer(link.id);
      }
      throw error;
    }
    await this.events.append(legacyTenantSql(m, draft.tenantId), [
      {
        type: 'order.created',
        orderId: written.order.id,
        data: { object: toOrderDto(written.order, written.items) },
      },
    ]);
    return written;
  }

  /**
   * The batch path (`seed orders`): `count` generated orders in one set-based statement with
   * their lines (seed-order-batch.ts), and no events. Returns how many it wrote.
   */
  async writeSeedBatch(m: EntityManager, batch: SeedBatch): Promise<number> {
    requireTenant(batch.tenantId);
    const [row]: Array<{ written: number }> = await m.query(SEED_ORDER_BATCH_SQL, [
      batch.tenantId,
      batch.count,
      batch.days,
      batch.customers.map((c) => c.id),
      batch.customers.map((c) => c.name),
      batch.customers.map((c) => c.email),
      batch.linkedShare,
      batch.offset,
      batch.total,
    ]);
    return row.written;
  }

  /**
   * Links the tenant's orders placed with `email` and no customer (guest orders, imports,
   * earlier ones too) to the customer who just proved the address is theirs. In the
   * caller's transaction; the link is a change of the order, so `updated_at` moves (and the
   * customer's counters grow, by trigger).
   */
  async linkToCustomer(db: TenantSql, customerId: number, email: string): Promise<number> {
    return db.count(
      `UPDATE orders SET customer_id = $2, updated_at = clock_timestamp()
       WHERE tenant_id = $1 AND customer_id IS NULL AND lower(customer_email) = lower($3)`,
      [customerId, email],
    );
  }
}

function unknownCustomer(id: number): AppError {
  return new AppError('unknown_customer', `customer ${id} is not a customer of this tenant`, {
    details: [{ field: 'customer.id', message: 'is not a customer of this tenant' }],
  });
}

/** row_to_json gives timestamps as text; the rest of the row is already in shape. */
function fromJson(order: Record<string, unknown>): OrderRow {
  return {
    ...(order as unknown as OrderRow),
    created_at: new Date(order.created_at as string),
    updated_at: new Date(order.updated_at as string),
  };
}
