import { countExpression, WHOLE_TENANT } from './order-counts.sql.js';
import {
  COMPLEMENT_COUNT_MAX,
  RANGE_FILTERS,
  rangeOf,
  sortOf,
  type OrderListSpec,
  type PageWindow,
} from './order-list-query.js';
import type { OrderScope } from './order-scope.js';
import { tagKey } from './operations/order-patch.js';

/**
 * Statement text for order reads, run by the repositories on the tenant path: `$1` is the
 * tenant (TenantSql binds it), `params` are the values of `$2` onwards.
 */
export interface Sql {
  text: string;
  params: unknown[];
}

/** Pushes `value` as the next parameter after the tenant's `$1`; returns its placeholder. */
function bind(params: unknown[], value: unknown): string {
  return `$${params.push(value) + 1}`;
}

/**
 * The scope's conditions on `orders`, exhaustively (a customer scope always adds its
 * customer), on `alias`'s columns when given. Every order query starts with these.
 */
export function scopeConditions(scope: OrderScope, params: unknown[], alias?: string): string[] {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  const scoped = [`${column('tenant_id')} = $1`];
  switch (scope.kind) {
    case 'tenant':
      break;
    case 'customer':
      scoped.push(`${column('customer_id')} = ${bind(params, scope.customerId)}`);
      break;
  }
  return scoped;
}

/** One ordered arm per status (none: one arm), joined to be merged or counted. */
function statusArms(
  statuses: readonly string[],
  params: unknown[],
  arm: (status: string) => string,
): string {
  if (statuses.length === 0) return arm('');
  return statuses
    .map((status) => `(${arm(` AND status = ${bind(params, status)}`)})`)
    .join(' UNION ALL ');
}

/**
 * The lines of the order `o` as a JSON array in line order, for a select list: one query
 * reads a page or an order together with its lines.
 */
export const ORDER_ITEMS_JSON = `(SELECT json_agg(i ORDER BY i.line_no) FROM (
    SELECT id, order_id, line_no, product_id, sku, name, quantity, unit_price_minor, total_minor,
      fulfilled_quantity, refunded_quantity
    FROM order_items WHERE tenant_id = o.tenant_id AND order_id = o.id) AS i) AS items`;

/**
 * One page of the list, each row with its lines (`items`) and `sort_key`: the sort column as
 * canonical UTC text with microseconds (the cursor's key; independent of the session's
 * TimeZone). A deferred join: the page's ids come from the sort index alone (an index-only
 * scan skips offset rows without reading them), then only those orders are read. Several
 * statuses are one ordered, limited arm per status, merged by the ORDER BY (a Merge Append
 * over the status indexes): `status = ANY(...)` would read every matching row and sort them.
 * `total` (SQL of a single value) is added to every row when given.
 */
export function orderListSql(
  scope: OrderScope,
  spec: OrderListSpec,
  columns: string,
  window: PageWindow,
  total?: Sql,
): Sql {
  const params: unknown[] = total ? [...total.params] : [];
  const where = conditions(scope, spec, params).join(' AND ');
  const { column, ascending } = sortOf(spec.sort);
  const direction = ascending !== Boolean(window.reverse) ? 'ASC' : 'DESC';
  const orderBy = (table = '') =>
    `ORDER BY ${table}${column} ${direction}, ${table}id ${direction}`;
  const statuses = spec.filters.status ?? [];
  const limit = `LIMIT ${bind(params, window.limit)} OFFSET ${bind(params, window.offset)}`;
  let ids: string;
  const range = window.rangeFirst ? rangeOf(scope, spec) : undefined;
  if (range !== undefined) {
    // Each arm in its range's index order (a subquery with ORDER BY is planned on its own:
    // the sort index cannot be chosen for it), then all of them sorted for the page.
    const arms = statusArms(
      statuses,
      params,
      (status) =>
        `SELECT id, ${column} FROM orders WHERE ${where}${status} ORDER BY ${range} DESC, id DESC`,
    );
    ids = `SELECT id FROM (${arms}) AS matching ${orderBy()} ${limit}`;
  } else if (statuses.length <= 1) {
    const status = statuses.length === 1 ? ` AND status = ${bind(params, statuses[0])}` : '';
    ids = `SELECT id FROM orders WHERE ${where}${status} ${orderBy()} ${limit}`;
  } else {
    const armLimit = bind(params, window.limit + window.offset);
    const arms = statuses.map(
      (status) =>
        `(SELECT id, ${column} FROM orders WHERE ${where} AND status = ${bind(params, status)} ${orderBy()} LIMIT ${armLimit})`,
    );
    ids = `SELECT id FROM (${arms.join(' UNION ALL ')}) AS arms ${orderBy()} ${limit}`;
  }
  const totalColumn = total ? `, (${total.text}) AS total` : '';
  return {
    text: `SELECT ${columns},
      to_char(o.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS sort_key,
      ${ORDER_ITEMS_JSON}${totalColumn}
      FROM (${ids}) AS page JOIN orders o ON o.tenant_id = $1 AND o.id = page.id
      ${orderBy('o.')}`,
    params,
  };
}

/**
 * How many orders the spec selects (cursor mode's choice of plan), counted up to `cap`
 * through the index of the range filter (rangeOf): at most `cap` index entries are read.
 */
export function orderMatchesUpToSql(scope: OrderScope, spec: OrderListSpec, cap: number): Sql {
  const range = rangeOf(scope, spec);
  if (range === undefined) throw new Error('orderMatchesUpToSql: the list has no range filter');
  const params: unknown[] = [];
  const where = conditions(scope, spec, params).join(' AND ');
  const upTo = bind(params, cap);
  const arms = statusArms(
    spec.filters.status ?? [],
    params,
    (status) =>
      `SELECT 1 FROM orders WHERE ${where}${status} ORDER BY ${range} DESC, id DESC LIMIT ${upTo}`,
  );
  return {
    text: `SELECT count(*)::int AS matching FROM (SELECT 1 FROM (${arms}) AS arms LIMIT ${upTo}) AS m`,
    params,
  };
}

/**
 * How many orders the spec selects (page mode's exact `meta.total`); `after` is ignored.
 * Read from the counters (order-counts.sql.ts) when the list is filtered by nothing but
 * statuses and the customer; from the counters less the orders outside the range when it is
 * filtered by one bound of one timestamp and that leaves few out; else counted.
 */
export function orderCountSql(
  scope: OrderScope,
  spec: OrderListSpec,
  complementMax = COMPLEMENT_COUNT_MAX,
): Sql {
  const counted = counterCountSql(scope, spec) ?? complementCountSql(scope, spec, complementMax);
  if (counted) return counted;
  const params: unknown[] = [];
  return { text: `SELECT ${scannedCount(scope, spec, params)} AS total`, params };
}

/** `count(*)` of the spec's orders, a scalar subquery; its values pushed onto `params`. */
function scannedCount(scope: OrderScope, spec: OrderListSpec, params: unknown[]): string {
  const where = conditions(scope, { ...spec, after: undefined }, params);
  const statuses = spec.filters.status ?? [];
  if (statuses.length === 1) where.push(`status = ${bind(params, statuses[0])}`);
  if (statuses.length > 1) where.push(`status = ANY(${bind(params, statuses)}::text[])`);
  return `(SELECT count(*)::int FROM orders WHERE ${where.join(' AND ')})`;
}

/**
 * A range with one bound on one timestamp (`updated_after=2000-01-01`, `created_before=…`)
 * often holds nearly every order: count the orders outside it (one short range of that
 * timestamp's index, read up to COMPLEMENT_COUNT_MAX) and subtract them from the counters,
 * as counterCountSql subtracts those past the horizon. When more than that are outside, the
 * range is counted (that probe cost at most COMPLEMENT_COUNT_MAX index entries).
 */
function complementCountSql(
  scope: OrderScope,
  spec: OrderListSpec,
  complementMax: number,
): Sql | undefined {
  if (scope.kind !== 'tenant') return undefined;
  const { status, ...others } = spec.filters;
  const bounds = Object.entries(others).filter(([, v]) => v !== undefined);
  if (bounds.length !== 1) return undefined;
  const [name, value] = bounds[0];
  if (!RANGE_FILTERS.includes(name)) return undefined;
  // $2 and (with statuses) $3 as countExpression reads them; $1 is the tenant.
  const params: unknown[] = [WHOLE_TENANT];
  if (status !== undefined) params.push(status);
  const bound = `${bind(params, value)}::timestamptz`;
  const column = name.startsWith('created') ? 'created_at' : 'updated_at';
  const outside = `${column} ${name.endsWith('_after') ? '<' : '>='} ${bound}`;
  const upTo = bind(params, complementMax);
  // Orders past the horizon (ascending sorts) are outside too: subtracted once, as `recent`,
  // and kept out of the probe.
  const sorted = sortOf(spec.sort).column;
  let beforeHorizon = '';
  let recent = '0';
  if (spec.horizon !== undefined) {
    const horizon = `${bind(params, spec.horizon)}::timestamptz`;
    const byStatus = status === undefined ? '' : ' AND status = ANY($3::text[])';
    beforeHorizon = ` AND ${sorted} < ${horizon}`;
    recent = `(SELECT count(*) FROM orders WHERE tenant_id = $1${byStatus} AND ${sorted} >= ${horizon})`;
  }
  const arms = statusArms(
    status ?? [],
    params,
    (byStatus) =>
      `SELECT 1 FROM orders WHERE tenant_id = $1${byStatus} AND ${outside}${beforeHorizon} ORDER BY ${column} DESC, id DESC LIMIT ${upTo}`,
  );
  const counted = countExpression(status !== undefined);
  return {
    text: `SELECT (CASE WHEN o.n < ${upTo} THEN ${counted} - ${recent} - o.n
        ELSE ${scannedCount(scope, spec, params)} END)::int AS total
      FROM (SELECT count(*) AS n FROM (SELECT 1 FROM (${arms}) AS arms LIMIT ${upTo}) AS p) AS o`,
    params,
  };
}

/**
 * The counters' total, less (ascending sorts) the orders at or past the horizon: those are
 * the last second's, a short range of the sort index.
 */
function counterCountSql(scope: OrderScope, spec: OrderListSpec): Sql | undefined {
  const { status, customer_id: customerFilter, ...others } = spec.filters;
  if (Object.values(others).some((v) => v !== undefined)) return undefined;
  const scoped = scope.kind === 'customer' ? scope.customerId : undefined;
  // A customer asking for another customer's orders selects none: counted, it says 0.
  if (scoped !== undefined && customerFilter !== undefined && customerFilter !== scoped) {
    return undefined;
  }
  const customer = scoped ?? customerFilter;
  // $2 and (with statuses) $3 as countExpression reads them; $1 is the tenant.
  const params: unknown[] = [customer ?? WHOLE_TENANT];
  if (status !== undefined) params.push(status);
  const counted = countExpression(status !== undefined);
  if (spec.horizon === undefined) return { text: `SELECT ${counted} AS total`, params };
  const recent = [
    'tenant_id = $1',
    ...(customer === undefined ? [] : ['customer_id = $2']),
    ...(status === undefined ? [] : ['status = ANY($3::text[])']),
    `${sortOf(spec.sort).column} >= ${bind(params, spec.horizon)}::timestamptz`,
  ];
  return {
    text: `SELECT ${counted} - (SELECT count(*) FROM orders WHERE ${recent.join(' AND ')}) AS total`,
    params,
  };
}

/** The scope first, always; then each filter, the cursor's position and the horizon. */
function conditions(scope: OrderScope, spec: OrderListSpec, params: unknown[]): string[] {
  const where = scopeConditions(scope, params);
  const p = (value: unknown) => bind(params, value);
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
  // The expressions of orders_tag_keys_idx and orders_metadata_keys_idx (GIN), compared with
  // the same functions of the filter's values: one index lookup of this tenant's keys. Each
  // index holds only the orders with a tag (a metadata key): the filter states that predicate,
  // implied by a match anyway (a metadata filter names 1–10 keys), so the planner can use it.
  if (f.tag !== undefined) {
    where.push(
      `tag_keys <> '{}'::text[] AND order_tag_keys(tenant_id, tag_keys) @> order_tag_keys($1, ARRAY[${p(tagKey(f.tag))}::text])`,
    );
  }
  if (f.metadata !== undefined) {
    where.push(
      `metadata <> '{}'::jsonb AND order_metadata_keys(tenant_id, metadata) @> order_metadata_keys($1, ${p(JSON.stringify(f.metadata))}::jsonb)`,
    );
  }
  const { column, ascending } = sortOf(spec.sort);
  if (spec.after) {
    where.push(
      `(${column}, id) ${ascending ? '>' : '<'} (${p(spec.after.key)}::timestamptz, ${p(spec.after.id)}::bigint)`,
    );
  }
  if (spec.horizon !== undefined) where.push(`${column} < ${p(spec.horizon)}::timestamptz`);
  return where;
}
