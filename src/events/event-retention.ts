import type { EntityManager } from 'typeorm';

/** Events removed per statement: each batch commits on its own (short transactions). */
const BATCH = 5000;

/**
 * Removes events older than the retention and records, per tenant, the last position
 * removed: a feed cursor before it has missed events and gets 410 cursor_expired. Webhook
 * deliveries of those events go with them (ON DELETE CASCADE). In bounded batches: one long
 * transaction would hold back every feed and the webhook dispatcher (they serve only below
 * the oldest open transaction).
 */
export async function purgeExpiredEvents(m: EntityManager, retentionDays: number): Promise<number> {
  let total = 0;
  for (;;) {
    const purged = await purgeBatch(m, retentionDays);
    total += purged;
    if (purged < BATCH) return total;
  }
}

async function purgeBatch(m: EntityManager, retentionDays: number): Promise<number> {
  const rows: Array<{ purged: number }> = await m.query(
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
    [retentionDays, BATCH],
  );
  return rows[0].purged;
}
