/**
 * The order counters (migrations 1764300000000 and 1764300000001): per (tenant, customer,
 * status), customer 0 standing for the whole tenant. Triggers on `orders` append the deltas of
 * every statement that writes orders, in its transaction and whoever runs it (the service,
 * `seed orders`, an older release, a fix by hand); OrderCountsCompactor folds them into
 * `order_counts` (OrderCountsRepository); `countExpression` reads both in one snapshot, so `meta.total` is exact
 * without `count(*)`.
 */

/** Stands for "every order of the tenant" in the counters' `customer_id`. */
export const WHOLE_TENANT = 0;

/**
 * The number of orders of the tenant's (`$1`, the path's) counter `$2` (a customer, or WHOLE_TENANT), in the
 * statuses `$3` when `byStatus`: the folded count plus the deltas not folded yet. An
 * expression; read in one statement, its two parts see one snapshot.
 */
export function countExpression(byStatus: boolean): string {
  const where = `tenant_id = $1 AND customer_id = $2${byStatus ? ' AND status = ANY($3::text[])' : ''}`;
  return `((SELECT coalesce(sum(count), 0) FROM order_counts WHERE ${where})
    + (SELECT coalesce(sum(delta), 0) FROM order_count_deltas WHERE ${where}))::bigint`;
}
