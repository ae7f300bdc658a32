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

/** What a tenant holds about a person, found by email (docs/BEHAVIOUR.md#customer-data-rights). */
@Injectable()
export class CustomerDataRepository {
  /**
   * Every order of the tenant placed with `email` (any case) or linked to `customerId`, in id
   * order, each with its lines, fulfillments and refunds, in one statement.
   */
  async ordersOf(
    db: TenantSql,
    email: string,
    customerId: number | null,
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
       ORDER BY o.id`,
      [email, customerId],
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
}
