import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import type { OrderDraft } from './order-draft.js';
import { ORDER_ITEMS_JSON, scopeConditions } from './order-list.sql.js';
import type { OrderScope } from './order-scope.js';
import type { CancelReason, FulfillmentStatus, StatusMove } from './order-operations.js';
import { tagKey } from './operations/order-patch.js';
import { INITIAL_ORDER_STATUS, type OrderStatus } from './order-status.js';

export interface OrderRow {
  id: number;
  version: number;
  status: OrderStatus;
  fulfillment_status: FulfillmentStatus;
  currency: string;
  total_minor: number;
  refunded_minor: number;
  customer_id: number | null;
  /** Null once the person was erased (docs/BEHAVIOUR.md#customer-data-rights); so are the next. */
  customer_name: string | null;
  customer_email: string | null;
  customer_phone: string | null;
  shipping_country: string;
  shipping_city: string;
  shipping_district: string | null;
  shipping_address: string | null;
  shipping_postal_code: string | null;
  source: 'api' | 'marketplace';
  marketplace: string | null;
  external_order_id: string | null;
  note: string | null;
  tags: string[];
  metadata: Record<string, string>;
  cancel_reason: CancelReason | null;
  cancel_note: string | null;
  cancelled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** An order read together with its lines. */
export interface OrderWithItemsRow extends OrderRow {
  /** null for an order without lines (never written by the service: every order has one). */
  items: ItemRow[] | null;
}

export interface ItemRow {
  id: number;
  order_id: number;
  line_no: number;
  product_id: number | null;
  sku: string;
  name: string;
  quantity: number;
  unit_price_minor: number;
  total_minor: number;
  fulfilled_quantity: number;
  refunded_quantity: number;
  /** Units held out of the product's stock (read for changes only: lockWithItems). */
  stock_held?: number;
}

/** The parts of an order a change can move, besides its lines. */
export type OrderState = Pick<
  OrderRow,
  | 'id'
  | 'status'
  | 'fulfillment_status'
  | 'refunded_minor'
  | 'cancel_reason'
  | 'cancel_note'
  | 'note'
  | 'tags'
  | 'metadata'
>;

/** A line's quantities after a change (`stock_held` left out: unchanged). */
export type LineChange = Pick<
  ItemRow,
  'id' | 'fulfilled_quantity' | 'refunded_quantity' | 'stock_held'
>;

/** What the database set when it saved a change. */
export interface SavedChange {
  version: number;
  updated_at: Date;
  cancelled_at: Date | null;
}

export interface WrittenOrder {
  order: OrderRow;
  items: ItemRow[];
}

const COLUMNS = `id, version, status, fulfillment_status, currency, total_minor, refunded_minor,
  customer_id, customer_name, customer_email, customer_phone, shipping_country, shipping_city,
  shipping_district, shipping_address, shipping_postal_code, source, marketplace,
  external_order_id, note, tags, metadata, cancel_reason, cancel_note, cancelled_at, created_at,
  updated_at`.split(/,\s*/);
const ORDER_COLUMNS = COLUMNS.join(', ');
const ITEM_COLUMNS = `id, order_id, line_no, product_id, sku, name, quantity, unit_price_minor,
  total_minor, fulfilled_quantity, refunded_quantity, stock_held`;
/** Qualified by `o`, for statements that read orders together with another relation. */
export const O_COLUMNS = COLUMNS.map((c) => `o.${c}`).join(', ');
const FIND_WITH_ITEMS = new Map<OrderScope['kind'], string>();

/** Orders of the path's tenant; every statement runs in the caller's unit of work. */
@Injectable()
export class OrdersRepository {
  /** Whether the order exists in the scope (an app: the tenant; a customer: its own). */
  async exists(db: TenantSql, scope: OrderScope, id: number): Promise<boolean> {
    const params: unknown[] = [];
    const where = scopeConditions(scope, params).join(' AND ');
    params.push(id);
    const rows = await db.rows(
      `SELECT 1 FROM orders WHERE ${where} AND id = $${params.length + 1}`,
      params,
    );
    return rows.length > 0;
  }

  /** One order with its lines, in one query. */
  async findWithItems(
    db: TenantSql,
    scope: OrderScope,
    id: number,
  ): Promise<OrderWithItemsRow | undefined> {
    const params: unknown[] = [];
    const conditions = scopeConditions(scope, params, 'o');
    // One text per scope kind, built once: the hot path's statement is a constant string.
    let text = FIND_WITH_ITEMS.get(scope.kind);
    if (text === undefined) {
      text = `SELECT ${O_COLUMNS}, ${ORDER_ITEMS_JSON} FROM orders o WHERE ${conditions.join(' AND ')} AND o.id = $${params.length + 2}`;
      FIND_WITH_ITEMS.set(scope.kind, text);
    }
    params.push(id);
    const rows = await db.rows<OrderWithItemsRow>(text, params, true);
    return rows[0];
  }

  /** The id of the order imported from `marketplace` as `externalOrderId`, if there is one. */
  async idByExternalId(
    db: TenantSql,
    marketplace: string,
    externalOrderId: string,
  ): Promise<number | undefined> {
    const row = await db.first<{ id: number }>(
      'SELECT id FROM orders WHERE tenant_id = $1 AND marketplace = $2 AND external_order_id = $3',
      [marketplace, externalOrderId],
    );
    return row?.id;
  }

  /**
   * One statement for the customer link, the tenant's currency, the order and its lines (the
   * database's triggers count it, order-counts.sql.ts). Undefined when the tenant does not
   * exist.
   */
  async insert(db: TenantSql, draft: OrderDraft): Promise<WrittenOrder | undefined> {
    const { link } = draft;
    const rows = await db.rows<{ order: Record<string, unknown>; items: ItemRow[] }>(
      // An import queued before its person was erased carries no person: the order is written
      // erased (docs/BEHAVIOUR.md#customer-data-rights).
      `WITH linked AS (
         SELECT CASE $2::text
           WHEN 'id' THEN (SELECT id FROM customers
                           WHERE tenant_id = $1 AND id = $3::bigint AND erased_at IS NULL)
           WHEN 'id-or-email' THEN COALESCE(
             (SELECT id FROM customers
              WHERE tenant_id = $1 AND id = $3::bigint AND erased_at IS NULL),
             (SELECT id FROM customers
              WHERE tenant_id = $1 AND lower(email) = lower($4) AND email_verified))
           ELSE (SELECT id FROM customers
                 WHERE tenant_id = $1 AND lower(email) = lower($4) AND email_verified)
         END AS customer_id),
       o AS (
         INSERT INTO orders (tenant_id, currency, total_minor, customer_id, customer_name,
           customer_email, customer_phone, shipping_country, shipping_city, shipping_district,
           shipping_address, shipping_postal_code, source, marketplace, external_order_id,
           app_id, status, erased_at)
         SELECT $1, t.currency, $5, linked.customer_id, $6, $7, $8, $9, $10, $11, $12, $13,
           $14, $15, $16, $17, $18, CASE WHEN $7::text IS NULL THEN now() END
         FROM tenants t, linked WHERE t.id = $1
         RETURNING *),
       i AS (
         INSERT INTO order_items (tenant_id, order_id, line_no, product_id, sku, name,
           quantity, unit_price_minor, total_minor, stock_held)
         SELECT o.tenant_id, o.id, l.line_no, l.product_id, l.sku, l.name, l.quantity,
           l.unit_price, l.total, l.stock_held
         FROM o, unnest($19::smallint[], $20::bigint[], $21::text[], $22::text[], $23::int[],
           $24::bigint[], $25::bigint[], $26::int[])
           AS l(line_no, product_id, sku, name, quantity, unit_price, total, stock_held)
         RETURNING id, order_id, line_no, product_id, sku, name, quantity, unit_price_minor,
           total_minor, fulfilled_quantity, refunded_quantity)
       SELECT row_to_json(o) AS order,
         (SELECT json_agg(i ORDER BY i.line_no) FROM i) AS items
       FROM o`,
      [
        link.kind,
        link.kind === 'email' ? null : link.id,
        link.kind === 'id' ? null : link.email,
        draft.totalMinor,
        draft.customer.name,
        draft.customer.email,
        draft.customer.phone ?? null,
        draft.shipping.country,
        draft.shipping.city,
        draft.shipping.district ?? null,
        draft.shipping.address,
        draft.shipping.postal_code ?? null,
        draft.source,
        draft.marketplace ?? null,
        draft.externalOrderId ?? null,
        draft.appId,
        INITIAL_ORDER_STATUS,
        draft.lines.map((_, i) => i + 1),
        draft.lines.map((l) => l.productId),
        draft.lines.map((l) => l.sku),
        draft.lines.map((l) => l.name),
        draft.lines.map((l) => l.quantity),
        draft.lines.map((l) => l.unitPriceMinor),
        draft.lines.map((l) => l.totalMinor),
        draft.lines.map((l) => l.stockHeld ?? 0),
      ],
      true,
    );
    const row = rows[0];
    return row && { order: fromJson(row.order), items: row.items };
  }

  /**
   * Whether the customer an order was just linked to is still one, read after the insert: the
   * insert's foreign-key check held the row (waiting for an erasure that had it), so this
   * statement sees any erasure that committed meanwhile, and none can start until commit.
   */
  async linkedCustomerIsLive(db: TenantSql, customerId: number): Promise<boolean> {
    const rows = await db.rows(
      'SELECT 1 FROM customers WHERE tenant_id = $1 AND id = $2 AND erased_at IS NULL',
      [customerId],
    );
    return rows.length > 0;
  }

  /**
   * The order with its lines, its row locked until the unit of work ends: every change of an
   * order starts here (OrderWriter), so changes of one order run one after the other and each
   * decides on the state the previous one left. Two statements on purpose: in READ COMMITTED a
   * statement that waited for the lock returns the newest order row but evaluates everything
   * else (a subquery of the lines) in the snapshot it started with, from before the change it
   * waited for; the lines' own statement starts once the lock is held and sees that change.
   */
  async lockWithItems(db: TenantSql, id: number): Promise<OrderWithItemsRow | undefined> {
    const order = await db.rows<OrderRow>(
      `SELECT ${ORDER_COLUMNS} FROM orders WHERE tenant_id = $1 AND id = $2 FOR UPDATE`,
      [id],
      true,
    );
    if (order.length === 0) return undefined;
    const items = await db.rows<ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM order_items WHERE tenant_id = $1 AND order_id = $2
       ORDER BY line_no`,
      [id],
      true,
    );
    return { ...order[0], items };
  }

  /**
   * Writes an order's new state in one statement: its lines' new quantities, every mutable
   * column, `version` + 1, `updated_at` (and `cancelled_at` on cancellation) at one instant,
   * and a history row per status move. The caller holds the row lock (lockWithItems) and
   * computed `next` from the state it read.
   */
  async saveChange(
    db: TenantSql,
    next: OrderState,
    lines: readonly LineChange[],
    moves: readonly StatusMove[],
    actor: string,
  ): Promise<SavedChange> {
    const rows = await db.rows<SavedChange>(
      `WITH now AS (SELECT clock_timestamp() AS at),
       lines AS (
         UPDATE order_items i SET fulfilled_quantity = d.fulfilled, refunded_quantity = d.refunded,
           stock_held = coalesce(d.held, i.stock_held)
         FROM unnest($3::bigint[], $4::int[], $5::int[], $18::int[]) AS d(id, fulfilled, refunded, held)
         WHERE i.tenant_id = $1 AND i.order_id = $2 AND i.id = d.id),
       changed AS (
         UPDATE orders o SET status = $6, fulfillment_status = $7, refunded_minor = $8,
           cancel_reason = $9, cancel_note = $10,
           cancelled_at = CASE WHEN $9::text IS NULL THEN NULL
                               ELSE coalesce(o.cancelled_at, now.at) END,
           note = $11, tags = $12, tag_keys = $17, metadata = $13, version = o.version + 1,
           updated_at = now.at
         FROM now WHERE o.tenant_id = $1 AND o.id = $2
         RETURNING o.version, o.updated_at, o.cancelled_at),
       logged AS (
         INSERT INTO order_status_changes (tenant_id, order_id, from_status, to_status, actor, changed_at)
         SELECT $1, $2, m.from_status, m.to_status, $14, changed.updated_at
         FROM unnest($15::text[], $16::text[]) WITH ORDINALITY AS m(from_status, to_status, n), changed
         ORDER BY m.n)
       SELECT version, updated_at, cancelled_at FROM changed`,
      [
        next.id,
        lines.map((l) => l.id),
        lines.map((l) => l.fulfilled_quantity),
        lines.map((l) => l.refunded_quantity),
        next.status,
        next.fulfillment_status,
        next.refunded_minor,
        next.cancel_reason,
        next.cancel_note,
        next.note,
        next.tags,
        JSON.stringify(next.metadata),
        actor,
        moves.map((m) => m.from),
        moves.map((m) => m.to),
        next.tags.map(tagKey),
        lines.map((l) => l.stock_held ?? null),
      ],
    );
    return rows[0];
  }

  /**
   * Links the tenant's orders placed with `email` and no customer to `customerId`; the link
   * is a change of the order, so `updated_at` moves (and the customer's counters grow, by
   * trigger). Returns how many orders it linked.
   */
  linkToCustomer(db: TenantSql, customerId: number, email: string): Promise<number> {
    return db.count(
      `UPDATE orders SET customer_id = $2, version = version + 1, updated_at = clock_timestamp()
       WHERE tenant_id = $1 AND customer_id IS NULL AND lower(customer_email) = lower($3)`,
      [customerId, email],
    );
  }
}

/** row_to_json gives timestamps as text; the rest of the row is already in shape. */
function fromJson(order: Record<string, unknown>): OrderRow {
  return {
    ...(order as unknown as OrderRow),
    cancelled_at: order.cancelled_at === null ? null : new Date(order.cancelled_at as string),
    created_at: new Date(order.created_at as string),
    updated_at: new Date(order.updated_at as string),
  };
}
