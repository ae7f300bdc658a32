import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import { postalAreaSql, redactedEventDataSql, redactedOrderSql } from './personal-data.sql.js';

/** $1 the tenant, $2 the order ids (exported for its plan's spec). */
export const REDACT_IDEMPOTENT_RESPONSES_SQL = `UPDATE idempotency_keys
  SET response_body = ${redactedOrderSql('response_body')}
  WHERE tenant_id = $1 AND order_id = ANY($2::bigint[])`;

/**
 * The statements of an erasure (docs/BEHAVIOUR.md#customer-data-rights), each in the caller's
 * unit of work, on the tenant path ($1 is the tenant). docs/SECURITY.md#personal-data lists
 * every place they cover.
 */
@Injectable()
export class CustomerErasureRepository {
  /**
   * The imports of this email (any case), locked in id order. First of all: an import being
   * processed holds its row and then links its order to the customer, so the erasure waits for
   * it before it takes the customer, and then finds its order.
   */
  async lockImports(db: TenantSql, email: string): Promise<void> {
    await db.rows(
      `SELECT id FROM marketplace_imports
       WHERE tenant_id = $1 AND lower(payload->'customer'->>'email') = lower($2)
       ORDER BY id FOR UPDATE`,
      [email],
    );
  }

  /**
   * The customer's tickets, before the customer is locked: a reset or verification holds its
   * ticket, then the customer.
   */
  async deleteTickets(db: TenantSql, customerId: number): Promise<void> {
    await db.rows('DELETE FROM customer_tickets WHERE tenant_id = $1 AND customer_id = $2', [
      customerId,
    ]);
  }

  /**
   * The registered, not yet erased customer with this email (any case); with `lock`, locked for
   * the change (and read again once a concurrent change commits).
   */
  async customerByEmail(db: TenantSql, email: string, lock: boolean): Promise<number | undefined> {
    const row = await db.first<{ id: number }>(
      `SELECT id FROM customers
       WHERE tenant_id = $1 AND lower(email) = lower($2) AND erased_at IS NULL
       ${lock ? 'FOR UPDATE' : ''}`,
      [email],
    );
    return row?.id;
  }

  /** The customer keeps its id and nothing that names the person. */
  async eraseCustomer(db: TenantSql, id: number): Promise<void> {
    await db.rows(
      `UPDATE customers SET name = NULL, email = NULL, phone = NULL, password_hash = NULL,
         email_verified = false, erased_at = now(), updated_at = now()
       WHERE tenant_id = $1 AND id = $2`,
      [id],
    );
  }

  /**
   * Every order with this email (any case) or of this customer loses the person's fields; its
   * version moves (caches and `If-Match` see the change) and so does `updated_at` (a sync by
   * `updated_after` fetches the redacted order). Locked in id order, as concurrent erasures of
   * one order's email and customer then wait for each other instead of deadlocking.
   */
  async redactOrders(db: TenantSql, email: string, customerId: number | null): Promise<number[]> {
    const rows = await db.rows<{ id: number }>(
      `WITH target AS (
         SELECT id FROM orders
         WHERE tenant_id = $1 AND erased_at IS NULL
           AND (lower(customer_email) = lower($2) OR customer_id = $3)
         ORDER BY id
         FOR UPDATE)
       UPDATE orders o SET customer_name = NULL, customer_email = NULL, customer_phone = NULL,
         shipping_address = NULL, shipping_district = NULL,
         shipping_postal_code = ${postalAreaSql('o.shipping_postal_code')},
         erased_at = now(), version = o.version + 1, updated_at = now()
       FROM target
       WHERE o.tenant_id = $1 AND o.id = target.id
       RETURNING o.id`,
      [email, customerId],
    );
    return rows.map((r) => r.id);
  }

  /** The event log's copies: the orders' events, and the customer's `customer.created`. */
  async redactEvents(db: TenantSql, orderIds: number[], customerId: number | null): Promise<void> {
    await db.rows(
      `UPDATE events SET data = ${redactedEventDataSql('data', `type = 'customer.created'`)}
       WHERE tenant_id = $1
         AND (order_id = ANY($2::bigint[])
           OR (type = 'customer.created' AND data->'object'->>'id' = $3::text))`,
      [orderIds, customerId],
    );
  }

  /**
   * Stored idempotent responses that are one of these orders (an Order's copy), found by the
   * order they name (idempotency_keys_order_idx): the cost follows the person's orders, never
   * the tenant's stored keys.
   */
  async redactIdempotentResponses(db: TenantSql, orderIds: number[]): Promise<void> {
    if (orderIds.length === 0) return;
    await db.rows(REDACT_IDEMPOTENT_RESPONSES_SQL, [orderIds]);
  }

  /** Marketplace import payloads of these orders, or with this email (imports that failed). */
  async redactImports(db: TenantSql, email: string, orderIds: number[]): Promise<void> {
    await db.rows(
      `UPDATE marketplace_imports SET payload = ${redactedOrderSql('payload')}, updated_at = now()
       WHERE tenant_id = $1
         AND (order_id = ANY($2::bigint[]) OR lower(payload->'customer'->>'email') = lower($3))`,
      [orderIds, email],
    );
  }
}
