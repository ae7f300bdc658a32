import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { preparedQuery } from '../database/prepared-query.js';
import { requireTenant } from '../common/tenant-scope.js';
import {
  ORDER_ITEMS_JSON,
  orderCountSql,
  orderListSql,
  orderMatchesUpToSql,
  type OrderListSpec,
  type PageWindow,
} from './order-list-query.js';
import { scopeConditions, type OrderScope } from './order-scope.js';
import type { OrderStatus } from './order-status.js';

export interface OrderRow {
  id: number;
  status: OrderStatus;
  currency: string;
  total_minor: number;
  customer_id: number | null;
  customer_name: string;
  customer_email: string;
  customer_phone: string | null;
  shipping_country: string;
  shipping_city: string;
  shipping_district: string | null;
  shipping_address: string;
  shipping_postal_code: string | null;
  source: 'api' | 'marketplace';
  marketplace: string | null;
  external_order_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** An order read together with its lines. */
export interface OrderWithItemsRow extends OrderRow {
  /** null for an order without lines (never written by the service: every order has one). */
  items: ItemRow[] | null;
}

/** A list row: the order, its lines, its sort key as canonical UTC text with microseconds. */
export interface ListedOrderRow extends OrderWithItemsRow {
  sort_key: string;
  /** The list's total, when it was asked for. */
  total?: number;
}

export interface ItemRow {
  order_id: number;
  line_no: number;
  product_id: number | null;
  sku: string;
  name: string;
  quantity: number;
  unit_price_minor: number;
  total_minor: number;
}

/**
 * The list shapes requests mostly take (no filter but at most one status), run as prepared
 * statements; the open-ended rest of the filter combinations is planned per request.
 */
function isHotShape(spec: OrderListSpec): boolean {
  const { status, ...others } = spec.filters;
  return (status?.length ?? 0) <= 1 && Object.values(others).every((v) => v === undefined);
}

const COLUMNS = `id, status, currency, total_minor, customer_id, customer_name, customer_email,
  customer_phone, shipping_country, shipping_city, shipping_district, shipping_address,
  shipping_postal_code, source, marketplace, external_order_id, created_at, updated_at`.split(
  /,\s*/,
);
const ORDER_COLUMNS = COLUMNS.join(', ');
/** Qualified by `o`, for statements that read orders together with another relation. */
const O_COLUMNS = COLUMNS.map((c) => `o.${c}`).join(', ');
const FIND_WITH_ITEMS = new Map<OrderScope['kind'], string>();

/** Order SQL. Every statement takes the tenant first; each runs in the caller's transaction. */
@Injectable()
export class OrdersRepository {
  /**
   * One page of the list (order-list-query.ts) in one query: each row with its lines, its
   * `sort_key` and, with `withTotal`, the list's total.
   */
  list(
    m: EntityManager,
    scope: OrderScope,
    spec: OrderListSpec,
    window: PageWindow,
    withTotal = false,
  ): Promise<ListedOrderRow[]> {
    const total = withTotal ? orderCountSql(scope, spec) : undefined;
    const { text, params } = orderListSql(scope, spec, O_COLUMNS, window, total);
    return isHotShape(spec) ? preparedQuery(m, text, params) : m.query(text, params);
  }

  async count(m: EntityManager, scope: OrderScope, spec: OrderListSpec): Promise<number> {
    const { text, params } = orderCountSql(scope, spec);
    const rows: Array<{ total: number }> = isHotShape(spec)
      ? await preparedQuery(m, text, params)
      : await m.query(text, params);
    return rows[0].total;
  }

  /** How many orders the spec selects, counted up to `cap` (order-list-query.ts rangeOf). */
  async countUpTo(
    m: EntityManager,
    scope: OrderScope,
    spec: OrderListSpec,
    cap: number,
  ): Promise<number> {
    const { text, params } = orderMatchesUpToSql(scope, spec, cap);
    const rows: Array<{ matching: number }> = await m.query(text, params);
    return rows[0].matching;
  }

  async find(
    m: EntityManager,
    scope: OrderScope,
    id: number,
    lock = false,
  ): Promise<OrderRow | undefined> {
    const params: unknown[] = [];
    const where = scopeConditions(scope, params).join(' AND ');
    const rows: OrderRow[] = await m.query(
      `SELECT ${ORDER_COLUMNS} FROM orders WHERE ${where} AND id = $${params.push(id)}${lock ? ' FOR UPDATE' : ''}`,
      params,
    );
    return rows[0];
  }

  /** One order with its lines, in one query. */
  async findWithItems(
    m: EntityManager,
    scope: OrderScope,
    id: number,
  ): Promise<OrderWithItemsRow | undefined> {
    const params: unknown[] = [];
    const where = scopeConditions(scope, params, 'o').join(' AND ');
    // One text per scope kind, built once: the hot path's statement is a constant string.
    let text = FIND_WITH_ITEMS.get(scope.kind);
    if (text === undefined) {
      text = `SELECT ${O_COLUMNS}, ${ORDER_ITEMS_JSON} FROM orders o WHERE ${where} AND o.id = $${params.length + 1}`;
      FIND_WITH_ITEMS.set(scope.kind, text);
    }
    params.push(id);
    const rows = await preparedQuery<OrderWithItemsRow>(m, text, params);
    return rows[0];
  }

  /** The status change with its history row (counted by trigger); the order comes back with its lines. */
  async setStatus(
    m: EntityManager,
    tenantId: number,
    id: number,
    from: OrderStatus,
    to: OrderStatus,
    actor: string,
  ): Promise<OrderWithItemsRow> {
    requireTenant(tenantId);
    const rows: OrderWithItemsRow[] = await m.query(
      `WITH changed AS (
         UPDATE orders SET status = $3, updated_at = clock_timestamp() WHERE tenant_id = $1 AND id = $2
         RETURNING tenant_id, ${ORDER_COLUMNS}),
       logged AS (
         INSERT INTO order_status_changes (tenant_id, order_id, from_status, to_status, actor, changed_at)
         SELECT $1, $2, $4, $3, $5, updated_at FROM changed)
       SELECT ${O_COLUMNS}, ${ORDER_ITEMS_JSON} FROM changed o`,
      [tenantId, id, to, from, actor],
    );
    return rows[0];
  }

  async activeProducts(
    m: EntityManager,
    tenantId: number,
    ids: number[],
  ): Promise<Map<number, { sku: string; name: string; price_minor: number }>> {
    requireTenant(tenantId);
    const rows = await preparedQuery<{
      id: number;
      sku: string;
      name: string;
      price_minor: number;
    }>(
      m,
      `SELECT id, sku, name, price_minor FROM products WHERE tenant_id = $1 AND id = ANY($2::bigint[]) AND active`,
      [tenantId, ids],
    );
    return new Map(rows.map((r) => [r.id, r]));
  }
}
