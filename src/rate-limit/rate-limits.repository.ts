import { Injectable } from '@nestjs/common';
import type { SharedSql } from '../database/sql/shared-sql.js';

/** A fixed window's counter after an attempt: attempts in the window and its end (epoch ms). */
export interface WindowCount {
  points: number;
  expire: number;
}

/**
 * The rate-limit counters every instance shares (`rate_limits`, no tenant's data): one row
 * per key and window, `expire` in epoch ms. Expired rows are purged by the maintenance job.
 */
@Injectable()
export class RateLimitsRepository {
  /**
   * Counts one attempt against `key`, atomically: a window that ended by `now` starts again
   * at one and ends `windowMs` later (the layout and semantics of rate-limiter-flexible's
   * PostgreSQL store, which this replaced; both clocks are this process's).
   */
  async consume(db: SharedSql, key: string, windowMs: number, now: number): Promise<WindowCount> {
    const [row] = await db.rows<WindowCount>(
      `INSERT INTO rate_limits AS r (key, points, expire) VALUES ($1, 1, $2)
       ON CONFLICT (key) DO UPDATE SET
         points = CASE WHEN r.expire <= $3 THEN 1 ELSE r.points + 1 END,
         expire = CASE WHEN r.expire <= $3 THEN $2 ELSE r.expire END
       RETURNING points, expire`,
      [key, now + windowMs, now],
      true,
    );
    return row;
  }

  /** Gives back one attempt in the window still running, if any (the database's clock). */
  async refund(db: SharedSql, key: string): Promise<void> {
    await db.rows(
      `UPDATE rate_limits SET points = points - 1
       WHERE key = $1 AND points > 0 AND expire > (extract(epoch FROM clock_timestamp()) * 1000)::bigint`,
      [key],
    );
  }

  async delete(db: SharedSql, key: string): Promise<void> {
    await db.rows('DELETE FROM rate_limits WHERE key = $1', [key]);
  }

  /**
   * Adds hits to their windows' counters (creating them) and reads the totals back, with those
   * of `idle` windows (read only), in one statement. Callers sort `hits` by key, so that two
   * instances lock the same rows in the same order.
   */
  addAndRead(
    db: SharedSql,
    hits: ReadonlyArray<{ key: string; points: number; expire: number }>,
    idle: readonly string[],
  ): Promise<Array<{ key: string; points: number }>> {
    return db.rows<{ key: string; points: number }>(
      `WITH added AS (
         INSERT INTO rate_limits AS r (key, points, expire)
         SELECT * FROM unnest($1::varchar[], $2::int[], $3::bigint[])
         ON CONFLICT (key) DO UPDATE SET points = r.points + EXCLUDED.points
         RETURNING key, points)
       SELECT key, points FROM added
       UNION ALL
       SELECT key, points FROM rate_limits WHERE key = ANY($4::varchar[])`,
      [hits.map((h) => h.key), hits.map((h) => h.points), hits.map((h) => h.expire), idle],
    );
  }
}
