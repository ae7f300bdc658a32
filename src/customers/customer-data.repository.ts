import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import type { FulfillmentRow } from '../orders/operations/fulfillments.repository.js';
import type { RefundRow } from '../orders/operations/refunds.repository.js';
import { ORDER_ITEMS_JSON } from '../orders/order-list.sql.js';
import { O_COLUMNS, type OrderWithItemsRow } from '../orders/orders.repository.js';

/** An order of a person, with its lines, fulfillments and refunds (oldest first). */
export interface PersonOrderRow extends OrderWithItemsRow {
  fulfillments: FulfillmentRow[];
  refunds: RefundRow[];
}

/**
 * A marketplace import of a person that has not become an order (yet, or ever), read from
 * its table here: customers/ sits beside marketplace/, not above it.
 */
export interface PersonImportRow {
  id: number;
  marketplace: string;
  external_order_id: string;
  status: 'queued' | 'processing' | 'failed';
  /** The import request as it was received. */
  payload: Record<string, unknown>;
  order_id: number | null;
  error: string | null;
  attempts: number;
  created_at: Date;
  updated_at: Date;
}

/**
 * What a tenant holds about a person, found by email (docs/BEHAVIOUR.md#customer-data-rights),
 * read a page at a time in id order: a person may have any number of orders, and the export
 * streams them (customer-data.service.ts).
 */
@Injectable()
export class CustomerDataRepository {
  /**
   * The next `limit` orders after `afterId` of the tenant placed with `email` (any case) or
   * linked to `customerId`, in id order, each with its lines, fulfillments and refunds, in one
   * statement.
   */
  async ordersOf(
    db: TenantSql,
    email: string,
    customerId: number | null,
    afterId: number,
    limit: number,
  ): Promise<PersonOrderRow[]> {
    const rows = await db.rows<PersonOrderRow>(
      `SELECT ${O_COLUMNS}, ${ORDER_ITEMS_JSON},
         (SELECT coalesce(json_agg(f ORDER BY f.id), '[]') FROM (
            SELECT id, order_id, items, tracking, created_at, updated_at FROM fulfillments
            WHERE tenant_id = o.tenant_id AND order_id = o.id) AS f) AS fulfillments,
         (SELECT coalesce(json_agg(r ORDER BY r.id), '[]') FROM (
            SELECT id, order_id, amount_minor, currency, items, reason, restocked, created_at
            FROM refunds WHERE tenant_id = o.tenant_id AND order_id = o.id) AS r) AS refunds
       FROM orders o
       WHERE o.tenant_id = $1
         AND (lower(o.customer_email) = lower($2) OR o.customer_id = $3::bigint)
         AND o.id > $4
       ORDER BY o.id LIMIT $5`,
      [email, customerId, afterId, limit],
    );
    // json_agg gives the records' timestamps as text.
    return rows.map((row) => ({
      ...row,
      fulfillments: row.fulfillments.map((f) => ({
        ...f,
        created_at: new Date(f.created_at),
        updated_at: new Date(f.updated_at),
      })),
      refunds: row.refunds.map((r) => ({ ...r, created_at: new Date(r.created_at) })),
    }));
  }

  /**
   * The next `limit` imports after `afterId` with `email` (any case) that have not become an
   * order: queued, processing or failed, with their payloads.
   */
  importsOf(
    db: TenantSql,
    email: string,
    afterId: number,
    limit: number,
  ): Promise<PersonImportRow[]> {
    return db.rows<PersonImportRow>(
      `SELECT id, marketplace, external_order_id, status, payload, order_id, error, attempts,
         created_at, updated_at
       FROM marketplace_imports
       WHERE tenant_id = $1 AND lower(payload->'customer'->>'email') = lower($2)
         AND status <> 'imported' AND id > $3
       ORDER BY id LIMIT $4`,
      [email, afterId, limit],
    );
  }
}
