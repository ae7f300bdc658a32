import { Injectable } from '@nestjs/common';
import type { CrossTenantSql } from '../database/sql/cross-tenant-sql.js';

/**
 * The event purge of every tenant (its cross-tenant path): removes events older than the
 * retention and records, per tenant, the last position removed, so a feed cursor before it
 * has missed events and gets 410 cursor_expired. Webhook deliveries of those events go with
 * them (ON DELETE CASCADE).
 */
@Injectable()
export class EventRetentionRepository {
  /** Removes up to `limit` expired events; returns how many. */
  async purgeBatch(db: CrossTenantSql, retentionDays: number, limit: number): Promise<number> {
    const row = await db.first<{ purged: number }>(
      `WITH purged AS (
         DELETE FROM events WHERE (tenant_id, seq) IN (
           SELECT tenant_id, seq FROM events
           WHERE created_at < now() - make_interval(days => $1) LIMIT $2)
         RETURNING tenant_id, txid, seq),
       last AS (
         SELECT DISTINCT ON (tenant_id) tenant_id, txid, seq FROM purged
         ORDER BY tenant_id, txid DESC, seq DESC),
       marked AS (
         INSERT INTO event_purges (tenant_id, txid, seq) SELECT tenant_id, txid, seq FROM last
         ON CONFLICT (tenant_id) DO UPDATE SET txid = EXCLUDED.txid, seq = EXCLUDED.seq
         WHERE (event_purges.txid, event_purges.seq) < (EXCLUDED.txid, EXCLUDED.seq))
       SELECT count(*)::int AS purged FROM purged`,
      [retentionDays, limit],
    );
    return row!.purged;
  }
}
