import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rate-limit counters shared by every instance (docs/BEHAVIOUR.md#rate-limits): one row per key and
 * window, the layout rate-limiter-flexible's PostgreSQL store expects (`expire` in epoch ms).
 * UNLOGGED: no WAL for a counter that changes on every counted request; a database crash
 * empties it, which only resets the windows in progress. Keys are hashes, never emails or
 * addresses in clear. Expired rows are purged by the maintenance job.
 */
export class RateLimits1764000000000 implements MigrationInterface {
  name = 'RateLimits1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE UNLOGGED TABLE rate_limits (
        key varchar(255) PRIMARY KEY,
        points integer NOT NULL DEFAULT 0,
        expire bigint
      )`);
    await q.query(`CREATE INDEX rate_limits_expire_idx ON rate_limits (expire)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE rate_limits`);
  }
}
