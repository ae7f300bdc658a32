import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';

export const TICKET_TYPES = ['email_verification', 'password_reset'] as const;
export type TicketType = (typeof TICKET_TYPES)[number];

/** customer_tickets SQL on the tenant path; every call runs in the caller's unit of work. */
@Injectable()
export class CustomerTicketsRepository {
  /** Stores a new ticket and deletes the customer's older ones of the type (superseded). */
  async replace(
    db: TenantSql,
    t: { customerId: number; type: TicketType; tokenHash: Buffer; ttlSeconds: number },
  ): Promise<{ expires_at: Date }> {
    await db.count(
      'DELETE FROM customer_tickets WHERE tenant_id = $1 AND customer_id = $2 AND type = $3',
      [t.customerId, t.type],
    );
    return (await db.first<{ expires_at: Date }>(
      `INSERT INTO customer_tickets (tenant_id, customer_id, type, token_hash, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) RETURNING expires_at`,
      [t.customerId, t.type, t.tokenHash, t.ttlSeconds],
    ))!;
  }

  /** The customer a valid ticket is for, without using it (to do costly work outside a transaction). */
  async peek(db: TenantSql, type: TicketType, tokenHash: Buffer): Promise<number | undefined> {
    const row = await db.first<{ customer_id: number }>(
      `SELECT customer_id FROM customer_tickets
       WHERE token_hash = $3 AND tenant_id = $1 AND type = $2 AND used_at IS NULL AND expires_at > now()`,
      [type, tokenHash],
    );
    return row?.customer_id;
  }

  /**
   * Uses the ticket: one conditional UPDATE, so of concurrent redemptions exactly one gets
   * the customer id. Undefined when unknown, of another tenant or type, used or expired.
   */
  async redeem(db: TenantSql, type: TicketType, tokenHash: Buffer): Promise<number | undefined> {
    const row = await db.first<{ customer_id: number }>(
      `UPDATE customer_tickets SET used_at = now()
       WHERE token_hash = $3 AND tenant_id = $1 AND type = $2
         AND used_at IS NULL AND expires_at > now()
       RETURNING customer_id`,
      [type, tokenHash],
    );
    return row?.customer_id;
  }
}
