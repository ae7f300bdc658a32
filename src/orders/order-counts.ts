/**
 * The order counters (migrations 1764300000000 and 1764300000001): per (tenant, customer,
 * status), customer 0 standing for the whole tenant. Triggers on `orders` append the deltas of
 * every statement that writes orders, in its transaction and whoever runs it (the service,
 * `seed orders`, an older release, a fix by hand); OrderCountsCompactor folds them into
 * `order_counts`; `countExpression` reads both in one snapshot, so `meta.total` is exact
 * without `count(*)`.
 */

/** Stands for "every order of the tenant" in the counters' `customer_id`. */
export const WHOLE_TENANT = 0;

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
