import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { requireTenant } from '../common/tenant-scope.js';

export const TICKET_TYPES = ['email_verification', 'password_reset'] as const;
export type TicketType = (typeof TICKET_TYPES)[number];

/** customer_tickets SQL, tenant first; every call runs in the caller's transaction. */
@Injectable()
export class CustomerTicketsRepository {
  /** Stores a new ticket and deletes the customer's older ones of the type (superseded). */
  async replace(
    m: EntityManager,
    tenantId: number,
    t: { customerId: number; type: TicketType; tokenHash: Buffer; ttlSeconds: number },
  ): Promise<{ expires_at: Date }> {
    requireTenant(tenantId);
    await m.query(
      'DELETE FROM customer_tickets WHERE tenant_id = $1 AND customer_id = $2 AND type = $3',
      [tenantId, t.customerId, t.type],
    );
    const rows: Array<{ expires_at: Date }> = await m.query(
      `INSERT INTO customer_tickets (tenant_id, customer_id, type, token_hash, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) RETURNING expires_at`,
      [tenantId, t.customerId, t.type, t.tokenHash, t.ttlSeconds],
    );
    return rows[0];
  }

  /** The customer a valid ticket is for, without using it (to do costly work outside a transaction). */
  async peek(
    m: EntityManager,
    tenantId: number,
    type: TicketType,
    tokenHash: Buffer,
  ): Promise<number | undefined> {
    requireTenant(tenantId);
    const rows: Array<{ customer_id: number }> = await m.query(
      `SELECT customer_id FROM customer_tickets
       WHERE token_hash = $3 AND tenant_id = $1 AND type = $2 AND used_at IS NULL AND expires_at > now()`,
      [tenantId, type, tokenHash],
    );
    return rows[0]?.customer_id;
  }

  /**
   * Uses the ticket: one conditional UPDATE, so of concurrent redemptions exactly one gets
   * the customer id. Undefined when unknown, of another tenant or type, used or expired.
   */
  async redeem(
    m: EntityManager,
    tenantId: number,
    type: TicketType,
    tokenHash: Buffer,
  ): Promise<number | undefined> {
    requireTenant(tenantId);
    const rows: Array<{ customer_id: number }> = await m.query(
      `WITH used AS (
         UPDATE customer_tickets SET used_at = now()
         WHERE token_hash = $3 AND tenant_id = $1 AND type = $2
           AND used_at IS NULL AND expires_at > now()
         RETURNING customer_id)
       SELECT customer_id FROM used`,
      [tenantId, type, tokenHash],
    );
    return rows[0]?.customer_id;
  }
}
