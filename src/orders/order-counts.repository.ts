import { Injectable } from '@nestjs/common';
import type { CrossTenantSql } from '../database/sql/cross-tenant-sql.js';
import type { SharedSql } from '../database/sql/shared-sql.js';

/** pg_try_advisory_xact_lock key: one compactor at a time in the cluster. */
const COMPACTION_LOCK = 0x6f72_6463; // 'ordc'

/** The order counters' upkeep (order-counts.sql.ts): folding deltas into counts. */
@Injectable()
export class OrderCountsRepository {
  /**
   * The compaction's transaction-scoped lock: without `wait`, false at once while another
   * compactor holds it; with `wait`, after that one has committed.
   */
  async lockCompaction(db: SharedSql, wait: boolean): Promise<boolean> {
    const [row] = await db.rows<{ locked: boolean }>(
      wait
        ? 'SELECT pg_advisory_xact_lock($1), true AS locked'
        : 'SELECT pg_try_advisory_xact_lock($1) AS locked',
      [COMPACTION_LOCK],
    );
    return row.locked;
  }

  /**
   * Folds at most `batch` pending deltas, of every tenant, into `order_counts` in one
   * statement (a reader sees them either as deltas or in the counts, never both or
   * neither); returns how many it folded.
   */
  async compact(db: CrossTenantSql, batch: number): Promise<number> {
    const [row] = await db.rows<{ folded: number }>(
      `WITH folded AS (
         DELETE FROM order_count_deltas
         WHERE ctid = ANY(ARRAY(SELECT ctid FROM order_count_deltas LIMIT $1))
         RETURNING tenant_id, customer_id, status, delta),
       added AS (
         INSERT INTO order_counts AS c (tenant_id, customer_id, status, count)
         SELECT tenant_id, customer_id, status, sum(delta) FROM folded
         GROUP BY tenant_id, customer_id, status
         ON CONFLICT (tenant_id, customer_id, status) DO UPDATE SET count = c.count + EXCLUDED.count)
       SELECT count(*)::int AS folded FROM folded`,
      [batch],
    );
    return row.folded;
  }
}
