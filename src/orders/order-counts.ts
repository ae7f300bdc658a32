/**
 * The order counters (migration 1764300000000): per (tenant, customer, status), customer 0
 * standing for the whole tenant. Every statement that writes orders appends its deltas in
 * the same transaction through `appendCountDeltas`; OrderCountsCompactor folds them into
 * `order_counts`; `countExpression` reads both in one snapshot, so `meta.total` is exact without
 * `count(*)`.
 */

/** Stands for "every order of the tenant" in the counters' `customer_id`. */
export const WHOLE_TENANT = 0;

/**
 * Appends `source`'s deltas, a SELECT of (tenant_id, customer_id, status, delta) rows, summed
 * per counter (for a data-modifying CTE or a statement of its own). An append locks nothing.
 */
export function appendCountDeltas(source: string): string {
  return `INSERT INTO order_count_deltas (tenant_id, customer_id, status, delta)
    SELECT d.tenant_id, d.customer_id, d.status, sum(d.delta) FROM (${source}) AS d
    GROUP BY d.tenant_id, d.customer_id, d.status HAVING sum(d.delta) <> 0`;
}

/**
 * The (tenant_id, customer_id, status, delta) rows that count the orders of `relation`
 * (columns tenant_id, customer_id, status), `sign` each: once for the tenant and once for
 * the customer, when the order has one.
 */
export function countRowsOf(relation: string, sign: 1 | -1 = 1): string {
  return `SELECT r.tenant_id, k.customer_id, r.status, ${sign} AS delta
    FROM ${relation} AS r
    CROSS JOIN LATERAL (VALUES (${WHOLE_TENANT}::bigint), (r.customer_id)) AS k(customer_id)
    WHERE k.customer_id IS NOT NULL`;
}

/**
 * The number of orders of tenant `$1`'s counter `$2` (a customer, or WHOLE_TENANT), in the
 * statuses `$3` when `byStatus`: the folded count plus the deltas not folded yet. An
 * expression; read in one statement, its two parts see one snapshot.
 */
export function countExpression(byStatus: boolean): string {
  const where = `tenant_id = $1 AND customer_id = $2${byStatus ? ' AND status = ANY($3::text[])' : ''}`;
  return `((SELECT coalesce(sum(count), 0) FROM order_counts WHERE ${where})
    + (SELECT coalesce(sum(delta), 0) FROM order_count_deltas WHERE ${where}))::bigint`;
}

/**
 * Folds at most `$1` pending deltas into `order_counts` in one statement (a reader sees them
 * either as deltas or in the counts, never both or neither); returns how many it folded.
 */
export const COMPACT_COUNTS_SQL = `WITH folded AS (
    DELETE FROM order_count_deltas
    WHERE ctid = ANY(ARRAY(SELECT ctid FROM order_count_deltas LIMIT $1))
    RETURNING tenant_id, customer_id, status, delta),
  added AS (
    INSERT INTO order_counts AS c (tenant_id, customer_id, status, count)
    SELECT tenant_id, customer_id, status, sum(delta) FROM folded
    GROUP BY tenant_id, customer_id, status
    ON CONFLICT (tenant_id, customer_id, status) DO UPDATE SET count = c.count + EXCLUDED.count)
  SELECT count(*)::int AS folded FROM folded`;
