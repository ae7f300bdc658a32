import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { offsetOf, type PageQuery } from '../common/pagination.js';
import { requireTenant } from '../common/tenant-scope.js';
import type { OrderScope } from './order-scope.js';
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
  async page(
    m: EntityManager,
    scope: OrderScope,
    query: PageQuery & { status?: OrderStatus },
  ): Promise<{ rows: OrderRow[]; total: number }> {
    const { where, params } = whereClause(scope, query.status);
    const [rows, count] = await Promise.all([
      m.query<OrderRow[]>(
        `SELECT ${ORDER_COLUMNS} FROM orders WHERE ${where}
         ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, query.limit, offsetOf(query)],
      ),
      m.query<Array<{ total: number }>>(
        `SELECT count(*)::int AS total FROM orders WHERE ${where}`,
        params,
      ),
    ]);
    return { rows, total: count[0].total };
  }

  async find(
    m: EntityManager,
    scope: OrderScope,
    id: number,
    lock = false,
  ): Promise<OrderRow | undefined> {
    const { where, params } = whereClause(scope);
    const rows: OrderRow[] = await m.query(
      `SELECT ${ORDER_COLUMNS} FROM orders WHERE ${where} AND id = $${params.length + 1}${lock ? ' FOR UPDATE' : ''}`,
      [...params, id],
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

/** The scope's condition, exhaustively: a customer scope always adds its customer. */
function whereClause(
  scope: OrderScope,
  status?: OrderStatus,
): { where: string; params: unknown[] } {
  requireTenant(scope.tenantId);
  const conditions = ['tenant_id = $1'];
  const params: unknown[] = [scope.tenantId];
  switch (scope.kind) {
    case 'tenant':
      break;
    case 'customer':
      params.push(scope.customerId);
      conditions.push(`customer_id = $${params.length}`);
      break;
  }
  if (status !== undefined) {
    params.push(status);
    conditions.push(`status = $${params.length}`);
  }
  return { where: conditions.join(' AND '), params };
}
