import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import type { OrderDraft } from './order-draft.js';
import { ORDER_ITEMS_JSON, scopeConditions } from './order-list.sql.js';
import type { OrderScope } from './order-scope.js';
import { INITIAL_ORDER_STATUS, type OrderStatus } from './order-status.js';

export interface OrderRow {
  id: number;
  status: OrderStatus;
  currency: string;
  total_minor: number;
  customer_id: number | null;
  customer_name: string;
  customer_email: string;
  customer_phone: string | null;
  shipping_country: string;
  shipping_city: string;
  shipping_district: string | null;
  shipping_address: string;
  shipping_postal_code: string | null;
  source: 'api' | 'marketplace';
  marketplace: string | null;
  external_order_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** An order read together with its lines. */
export interface OrderWithItemsRow extends OrderRow {
  /** null for an order without lines (never written by the service: every order has one). */
  items: ItemRow[] | null;
}

export interface ItemRow {
  order_id: number;
  line_no: number;
  product_id: number | null;
  sku: string;
  name: string;
  quantity: number;
  unit_price_minor: number;
  total_minor: number;
}

export interface WrittenOrder {
  order: OrderRow;
  items: ItemRow[];
}

const COLUMNS = `id, status, currency, total_minor, customer_id, customer_name,
  customer_email, customer_phone, shipping_country, shipping_city, shipping_district,
  shipping_address, shipping_postal_code, source, marketplace, external_order_id, created_at,
  updated_at`.split(/,\s*/);
const ORDER_COLUMNS = COLUMNS.join(', ');
/** Qualified by `o`, for statements that read orders together with another relation. */
export const O_COLUMNS = COLUMNS.map((c) => `o.${c}`).join(', ');
const FIND_WITH_ITEMS = new Map<OrderScope['kind'], string>();

/** Orders of the path's tenant; every statement runs in the caller's unit of work. */
@Injectable()
export class OrdersRepository {
  async find(
    db: TenantSql,
    scope: OrderScope,
    id: number,
    lock = false,
  ): Promise<OrderRow | undefined> {
    const params: unknown[] = [];
    const where = scopeConditions(scope, params).join(' AND ');
    params.push(id);
    return db.first<OrderRow>(
      `SELECT ${ORDER_COLUMNS} FROM orders WHERE ${where} AND id = $${params.length + 1}${lock ? ' FOR UPDATE' : ''}`,
      params,
    );
  }

  /** One order with its lines, in one query. */
  async findWithItems(
    db: TenantSql,
    scope: OrderScope,
    id: number,
  ): Promise<OrderWithItemsRow | undefined> {
    const params: unknown[] = [];
    const conditions = scopeConditions(scope, params, 'o');
    // One text per scope kind, built once: the hot path's statement is a constant string.
    let text = FIND_WITH_ITEMS.get(scope.kind);
    if (text === undefined) {
      text = `SELECT ${O_COLUMNS}, ${ORDER_ITEMS_JSON} FROM orders o WHERE ${conditions.join(' AND ')} AND o.id = $${params.length + 2}`;
      FIND_WITH_ITEMS.set(scope.kind, text);
    }
    params.push(id);
    const rows = await db.rows<OrderWithItemsRow>(text, params, true);
    return rows[0];
  }

  /** The id of the order imported from `marketplace` as `externalOrderId`, if there is one. */
  async idByExternalId(
    db: TenantSql,
    marketplace: string,
    externalOrderId: string,
  ): Promise<number | undefined> {
    const row = await db.first<{ id: number }>(
      'SELECT id FROM orders WHERE tenant_id = $1 AND marketplace = $2 AND external_order_id = $3',
      [marketplace, externalOrderId],
    );
    return row?.id;
  }

  /**
   * One statement for the customer link, the tenant's currency, the order and its lines (the
   * database's triggers count it, order-counts.sql.ts). Undefined when the tenant does not
   * exist.
   */
  async insert(db: TenantSql, draft: OrderDraft): Promise<WrittenOrder | undefined> {
    const { link } = draft;
    const rows = await db.rows<{ order: Record<string, unknown>; items: ItemRow[] }>(
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
      true,
    );
    const row = rows[0];
    return row && { order: fromJson(row.order), items: row.items };
  }

  /** The status change with its history row (counted by trigger); the order comes back with its lines. */
  async setStatus(
    db: TenantSql,
    id: number,
    from: OrderStatus,
    to: OrderStatus,
    actor: string,
  ): Promise<OrderWithItemsRow> {
    const rows = await db.rows<OrderWithItemsRow>(
      `WITH changed AS (
         UPDATE orders SET status = $3, updated_at = clock_timestamp() WHERE tenant_id = $1 AND id = $2
         RETURNING tenant_id, ${ORDER_COLUMNS}),
       logged AS (
         INSERT INTO order_status_changes (tenant_id, order_id, from_status, to_status, actor, changed_at)
         SELECT $1, $2, $4, $3, $5, updated_at FROM changed)
       SELECT ${O_COLUMNS}, ${ORDER_ITEMS_JSON} FROM changed o`,
      [id, to, from, actor],
    );
    return rows[0];
  }

  /**
   * Links the tenant's orders placed with `email` and no customer to `customerId`; the link
   * is a change of the order, so `updated_at` moves (and the customer's counters grow, by
   * trigger). Returns how many orders it linked.
   */
  linkToCustomer(db: TenantSql, customerId: number, email: string): Promise<number> {
    return db.count(
      `UPDATE orders SET customer_id = $2, updated_at = clock_timestamp()
       WHERE tenant_id = $1 AND customer_id IS NULL AND lower(customer_email) = lower($3)`,
      [customerId, email],
    );
  }
}

/** row_to_json gives timestamps as text; the rest of the row is already in shape. */
function fromJson(order: Record<string, unknown>): OrderRow {
  return {
    ...(order as unknown as OrderRow),
    created_at: new Date(order.created_at as string),
    updated_at: new Date(order.updated_at as string),
  };
}
