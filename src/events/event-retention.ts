import type { EntityManager } from 'typeorm';

/**
 * Removes events older than the retention and records, per tenant, the last position
 * removed: a feed cursor before it has missed events and gets 410 cursor_expired. Webhook
 * deliveries of those events go with them (ON DELETE CASCADE).
 */
export async function purgeExpiredEvents(m: EntityManager, retentionDays: number): Promise<number> {
  const rows: Array<{ purged: number }> = await m.query(
    `WITH purged AS (
       DELETE FROM events WHERE created_at < now() - make_interval(days => $1)
       RETURNING tenant_id, txid, seq),
     last AS (
       SELECT DISTINCT ON (tenant_id) tenant_id, txid, seq FROM purged
       ORDER BY tenant_id, txid DESC, seq DESC),
     marked AS (
       INSERT INTO event_purges (tenant_id, txid, seq) SELECT tenant_id, txid, seq FROM last
       ON CONFLICT (tenant_id) DO UPDATE SET txid = EXCLUDED.txid, seq = EXCLUDED.seq
       WHERE (event_purges.txid, event_purges.seq) < (EXCLUDED.txid, EXCLUDED.seq))
     SELECT count(*)::int AS purged FROM purged`,
    [retentionDays],
  );
  return rows[0].purged;
}
