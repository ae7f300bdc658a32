import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { offsetOf, type PageQuery } from '../common/pagination.js';
import { requireTenant } from '../common/tenant-scope.js';
import { INITIAL_ORDER_STATUS, type OrderStatus } from './order-status.js';
import type { PricedLine } from './pricing.js';

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

export interface NewOrder {
  currency: string;
  totalMinor: number;
  customerId: number | null;
  customer: { name: string; email: string; phone?: string | null };
  shipping: {
    country: string;
    city: string;
    district?: string | null;
    address: string;
    postal_code?: string | null;
  };
  source: 'api' | 'marketplace';
  marketplace?: string | null;
  externalOrderId?: string | null;
  appId: number | null;
}

/** Who may see an order: the whole tenant, or one customer of it. */
export interface OrderFilter {
  tenantId: number;
  customerId?: number;
  status?: OrderStatus;
}

const ORDER_COLUMNS = `id, status, currency, total_minor, customer_id, customer_name, customer_email,
  customer_phone, shipping_country, shipping_city, shipping_district, shipping_address,
  shipping_postal_code, source, marketplace, external_order_id, created_at, updated_at`;

/** Order SQL. Every statement takes the tenant first; each runs in the caller's transaction. */
@Injectable()
export class OrdersRepository {
  async insert(m: EntityManager, tenantId: number, o: NewOrder): Promise<OrderRow> {
    requireTenant(tenantId);
    const rows: OrderRow[] = await m.query(
      `INSERT INTO orders (tenant_id, currency, total_minor, customer_id, customer_name, customer_email,
         customer_phone, shipping_country, shipping_city, shipping_district, shipping_address,
         shipping_postal_code, source, marketplace, external_order_id, app_id, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
       RETURNING ${ORDER_COLUMNS}`,
      [
        tenantId,
        o.currency,
        o.totalMinor,
        o.customerId,
        o.customer.name,
        o.customer.email,
        o.customer.phone ?? null,
        o.shipping.country,
        o.shipping.city,
        o.shipping.district ?? null,
        o.shipping.address,
        o.shipping.postal_code ?? null,
        o.source,
        o.marketplace ?? null,
        o.externalOrderId ?? null,
        o.appId,
        INITIAL_ORDER_STATUS,
      ],
    );
    return rows[0];
  }

  async insertItems(
    m: EntityManager,
    tenantId: number,
    orderId: number,
    lines: PricedLine[],
  ): Promise<ItemRow[]> {
    requireTenant(tenantId);
    return m.query(
      `INSERT INTO order_items (tenant_id, order_id, line_no, product_id, sku, name, quantity, unit_price_minor, total_minor)
       SELECT $1, $2, l.line_no, l.product_id, l.sku, l.name, l.quantity, l.unit_price, l.total
       FROM unnest($3::smallint[], $4::bigint[], $5::text[], $6::text[], $7::int[], $8::bigint[], $9::bigint[])
         AS l(line_no, product_id, sku, name, quantity, unit_price, total)
       RETURNING order_id, line_no, product_id, sku, name, quantity, unit_price_minor, total_minor`,
      [
        tenantId,
        orderId,
        lines.map((_, i) => i + 1),
        lines.map((l) => l.productId),
        lines.map((l) => l.sku),
        lines.map((l) => l.name),
        lines.map((l) => l.quantity),
        lines.map((l) => l.unitPriceMinor),
        lines.map((l) => l.totalMinor),
      ],
    );
  }

  async page(
    m: EntityManager,
    filter: OrderFilter,
    query: PageQuery,
  ): Promise<{ rows: OrderRow[]; total: number }> {
    const { where, params } = whereClause(filter);
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
    filter: OrderFilter,
    id: number,
    lock = false,
  ): Promise<OrderRow | undefined> {
    const { where, params } = whereClause(filter);
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

  async customerById(m: EntityManager, tenantId: number, id: number): Promise<number | undefined> {
    requireTenant(tenantId);
    const rows: Array<{ id: number }> = await m.query(
      'SELECT id FROM customers WHERE tenant_id = $1 AND id = $2',
      [tenantId, id],
    );
    return rows[0]?.id;
  }

  async customerByEmail(
    m: EntityManager,
    tenantId: number,
    email: string,
  ): Promise<number | undefined> {
    requireTenant(tenantId);
    const rows: Array<{ id: number }> = await m.query(
      'SELECT id FROM customers WHERE tenant_id = $1 AND lower(email) = lower($2)',
      [tenantId, email],
    );
    return rows[0]?.id;
  }

  async tenantCurrency(m: EntityManager, tenantId: number): Promise<string> {
    requireTenant(tenantId);
    const rows: Array<{ currency: string }> = await m.query(
      'SELECT currency FROM tenants WHERE id = $1',
      [tenantId],
    );
    return rows[0].currency;
  }
}

function whereClause(filter: OrderFilter): { where: string; params: unknown[] } {
  requireTenant(filter.tenantId);
  const conditions = ['tenant_id = $1'];
  const params: unknown[] = [filter.tenantId];
  if (filter.customerId !== undefined) {
    params.push(filter.customerId);
    conditions.push(`customer_id = $${params.length}`);
  }
  if (filter.status !== undefined) {
    params.push(filter.status);
    conditions.push(`status = $${params.length}`);
  }
  return { where: conditions.join(' AND '), params };
}
