import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { requireTenant } from '../common/tenant-scope.js';
import { orderCountSql, orderListSql, type OrderListSpec } from './order-list-query.js';
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

/** A list row: the order and its sort key as canonical UTC text with microseconds. */
export interface ListedOrderRow extends OrderRow {
  sort_key: string;
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

const ORDER_COLUMNS = `id, status, currency, total_minor, customer_id, customer_name, customer_email,
  customer_phone, shipping_country, shipping_city, shipping_district, shipping_address,
  shipping_postal_code, source, marketplace, external_order_id, created_at, updated_at`;

/** Order SQL. Every statement takes the tenant first; each runs in the caller's transaction. */
@Injectable()
export class OrdersRepository {
  /** One page of the list (order-list-query.ts), each row with its `sort_key`. */
  list(
    m: EntityManager,
    scope: OrderScope,
    spec: OrderListSpec,
    limit: number,
    offset: number,
  ): Promise<ListedOrderRow[]> {
    const { text, params } = orderListSql(scope, spec, ORDER_COLUMNS, limit, offset);
    return m.query(text, params);
  }

  async count(m: EntityManager, scope: OrderScope, spec: OrderListSpec): Promise<number> {
    const { text, params } = orderCountSql(scope, spec);
    const rows: Array<{ total: number }> = await m.query(text, params);
    return rows[0].total;
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

  /** Lines of several orders in one query (no N+1), in line order. */
  async items(
    m: EntityManager,
    tenantId: number,
    orderIds: number[],
  ): Promise<Map<number, ItemRow[]>> {
    requireTenant(tenantId);
    const byOrder = new Map<number, ItemRow[]>(orderIds.map((id) => [id, []]));
    if (orderIds.length === 0) return byOrder;
    const rows: ItemRow[] = await m.query(
      `SELECT order_id, line_no, product_id, sku, name, quantity, unit_price_minor, total_minor
       FROM order_items WHERE tenant_id = $1 AND order_id = ANY($2::bigint[]) ORDER BY order_id, line_no`,
      [tenantId, orderIds],
    );
    for (const row of rows) byOrder.get(row.order_id)?.push(row);
    return byOrder;
  }

  async setStatus(
    m: EntityManager,
    tenantId: number,
    id: number,
    from: OrderStatus,
    to: OrderStatus,
    actor: string,
  ): Promise<OrderRow> {
    requireTenant(tenantId);
    const rows: OrderRow[] = await m.query(
      `WITH changed AS (
         UPDATE orders SET status = $3, updated_at = clock_timestamp() WHERE tenant_id = $1 AND id = $2
         RETURNING ${ORDER_COLUMNS}),
       logged AS (
         INSERT INTO order_status_changes (tenant_id, order_id, from_status, to_status, actor, changed_at)
         SELECT $1, $2, $4, $3, $5, updated_at FROM changed)
       SELECT * FROM changed`,
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
    const rows: Array<{ id: number; sku: string; name: string; price_minor: number }> =
      await m.query(
        `SELECT id, sku, name, price_minor FROM products WHERE tenant_id = $1 AND id = ANY($2::bigint[]) AND active`,
        [tenantId, ids],
      );
    return new Map(rows.map((r) => [r.id, r]));
  }
}
