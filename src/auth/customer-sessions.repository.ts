import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';

/** A revoked session, with what every instance needs to forget it in time. */
export interface RevokedSession {
  id: string;
  expires_at: Date;
}

/** Ending customer sessions, on the tenant path ($1 is the tenant). */
@Injectable()
export class CustomerSessionsRepository {
  /** The refresh chain a session came from (null: none, or no such session). */
  async chainOfSession(db: TenantSql, sessionId: string): Promise<string | null> {
    const row = await db.first<{ chain_id: string | null }>(
      'SELECT chain_id FROM customer_sessions WHERE tenant_id = $1 AND id = $2',
      [sessionId],
    );
    return row?.chain_id ?? null;
  }

  /**
   * Marks the session revoked; returns its expiry and its refresh chain, or undefined when there
   * is no such session.
   */
  revokeSession(
    db: TenantSql,
    sessionId: string,
  ): Promise<{ expires_at: Date; chain_id: string | null } | undefined> {
    return db.first<{ expires_at: Date; chain_id: string | null }>(
      `UPDATE customer_sessions SET revoked_at = COALESCE(revoked_at, now())
       WHERE tenant_id = $1 AND id = $2 RETURNING expires_at, chain_id`,
      [sessionId],
    );
  }

  /**
   * Revokes every live session of the customer except `keep` (only those of `chainId`, when
   * given); returns the revoked ones.
   */
  revokeSessionsOf(
    db: TenantSql,
    customerId: number,
    options: { keep?: string; chainId?: string } = {},
  ): Promise<RevokedSession[]> {
    return db.rows<RevokedSession>(
      `UPDATE customer_sessions SET revoked_at = now()
       WHERE tenant_id = $1 AND customer_id = $2 AND revoked_at IS NULL AND expires_at > now()
         AND ($3::uuid IS NULL OR id <> $3::uuid) AND ($4::uuid IS NULL OR chain_id = $4::uuid)
       RETURNING id, expires_at`,
      [customerId, options.keep ?? null, options.chainId ?? null],
    );
  }
}
