import type { EntityManager } from 'typeorm';

/**
 * Rows that outlived their use, by table. Tokens and sessions stay an hour past expiry
 * (beyond any clock leeway), then no check can need them; rate-limit windows and
 * Idempotency-Keys go as soon as they end (expired keys are ignored meanwhile).
 */
const PURGES = {
  idempotency_keys: 'DELETE FROM idempotency_keys WHERE expires_at <= now()',
  app_tokens: "DELETE FROM app_tokens WHERE expires_at < now() - interval '1 hour'",
  customer_sessions: "DELETE FROM customer_sessions WHERE expires_at < now() - interval '1 hour'",
  rate_limits: 'DELETE FROM rate_limits WHERE expire < (extract(epoch FROM now()) * 1000)::bigint',
  // Tickets go at expiry, used ones at the latest a day after use.
  customer_tickets:
    "DELETE FROM customer_tickets WHERE expires_at < now() OR used_at < now() - interval '1 day'",
} as const;

export type PurgeCounts = Record<keyof typeof PURGES, number>;

/** Deletes every expired row; returns how many per table. */
export async function purgeExpiredRows(manager: EntityManager): Promise<PurgeCounts> {
  const counts = {} as PurgeCounts;
  for (const [table, sql] of Object.entries(PURGES) as Array<[keyof PurgeCounts, string]>) {
    const rows: unknown[] = await manager.query(
      `WITH purged AS (${sql} RETURNING 1) SELECT 1 FROM purged`,
    );
    counts[table] = rows.length;
  }
  return counts;
}
