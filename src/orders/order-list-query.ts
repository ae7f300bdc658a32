import type { OrderListPosition } from './order-list-cursor.js';
import type { OrderListFilters, OrderListSort } from './order-list-filters.js';
import { scopeConditions, type OrderScope } from './order-scope.js';

/** What to read: the walk's sort and filters, where it stands, and (ascending) its horizon. */
export interface OrderListSpec {
  sort: OrderListSort;
  filters: OrderListFilters;
  /** Cursor mode: only orders after this one in the sort order. */
  after?: OrderListPosition;
  /** Ascending sorts: only orders whose sort key is below this instant (order-list-horizon.ts). */
  horizon?: string;
}

export interface Sql {
  text: string;
  params: unknown[];
}

const SORTS: Record<OrderListSort, { column: 'created_at' | 'updated_at'; ascending: boolean }> = {
  '-created_at': { column: 'created_at', ascending: false },
  created_at: { column: 'created_at', ascending: true },
  '-updated_at': { column: 'updated_at', ascending: false },
  updated_at: { column: 'updated_at', ascending: true },
};

export function isAscending(sort: OrderListSort): boolean {
  return SORTS[sort].ascending;
}

/**
 * One page of the list, `limit` rows from `offset`, each with `sort_key`: the sort column as
 * canonical UTC text with microseconds (the cursor's key; independent of the session's
 * TimeZone). Several statuses are one ordered, limited arm per status, merged by the outer
 * ORDER BY (a Merge Append over the status indexes): `status = ANY(...)` would read every
 * matching row and sort them.
 */
export function orderListSql(
  scope: OrderScope,
  spec: OrderListSpec,
  columns: string,
  limit: number,
  offset: number,
): Sql {
  const params: unknown[] = [];
  const where = conditions(scope, spec, params).join(' AND ');
  const { column, ascending } = SORTS[spec.sort];
  const direction = ascending ? 'ASC' : 'DESC';
  const orderBy = `ORDER BY ${column} ${direction}, id ${direction}`;
  const select = `SELECT ${columns},
    to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS sort_key
    FROM orders WHERE ${where}`;
  const statuses = spec.filters.status ?? [];
  if (statuses.length <= 1) {
    const status = statuses.length === 1 ? ` AND status = $${params.push(statuses[0])}` : '';
    return {
      text: `${select}${status} ${orderBy} LIMIT $${params.push(limit)} OFFSET $${params.push(offset)}`,
      params,
    };
  }
  const armLimit = `$${params.push(limit + offset)}`;
  const arms = statuses.map(
    (status) => `(${select} AND status = $${params.push(status)} ${orderBy} LIMIT ${armLimit})`,
  );
  return {
    text: `SELECT * FROM (${arms.join(' UNION ALL ')}) AS arms ${orderBy}
      LIMIT $${params.push(limit)} OFFSET $${params.push(offset)}`,
    params,
  };
}

/** How many orders the spec selects (page mode's exact `meta.total`); `after` is ignored. */
export function orderCountSql(scope: OrderScope, spec: OrderListSpec): Sql {
  const params: unknown[] = [];
  const where = conditions(scope, { ...spec, after: undefined }, params);
  const statuses = spec.filters.status ?? [];
  if (statuses.length === 1) where.push(`status = $${params.push(statuses[0])}`);
  if (statuses.length > 1) where.push(`status = ANY($${params.push(statuses)}::text[])`);
  return { text: `SELECT count(*)::int AS total FROM orders WHERE ${where.join(' AND ')}`, params };
}

/** The scope first, always; then each filter, the cursor's position and the horizon. */
function conditions(scope: OrderScope, spec: OrderListSpec, params: unknown[]): string[] {
  const where = scopeConditions(scope, params);
  const p = (value: unknown) => `$${params.push(value)}`;
  const f = spec.filters;
  if (f.created_after !== undefined) where.push(`created_at >= ${p(f.created_after)}::timestamptz`);
  if (f.created_before !== undefined)
    where.push(`created_at < ${p(f.created_before)}::timestamptz`);
  if (f.updated_after !== undefined) where.push(`updated_at >= ${p(f.updated_after)}::timestamptz`);
  if (f.updated_before !== undefined)
    where.push(`updated_at < ${p(f.updated_before)}::timestamptz`);
  // The expression of orders_email_list_idx.
  if (f.email !== undefined) where.push(`lower(customer_email) = lower(${p(f.email)})`);
  if (f.customer_id !== undefined) where.push(`customer_id = ${p(f.customer_id)}::bigint`);
  if (f.source !== undefined) where.push(`source = ${p(f.source)}`);
  if (f.marketplace !== undefined) where.push(`marketplace = ${p(f.marketplace)}`);
  if (f.external_order_id !== undefined) {
    where.push(`external_order_id = ${p(f.external_order_id)}`);
  }
  const { column, ascending } = SORTS[spec.sort];
  if (spec.after) {
    where.push(
      `(${column}, id) ${ascending ? '>' : '<'} (${p(spec.after.key)}::timestamptz, ${p(spec.after.id)}::bigint)`,
    );
  }
  if (spec.horizon !== undefined) where.push(`${column} < ${p(spec.horizon)}::timestamptz`);
  return where;
}
