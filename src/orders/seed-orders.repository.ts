import { Injectable } from '@nestjs/common';
import type { CrossTenantSql } from '../database/sql/cross-tenant-sql.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';

/** What one `seed orders` batch writes (SEED_ORDER_BATCH). */
export interface SeedBatch {
  count: number;
  /** `created_at` falls within this many days before now. */
  days: number;
  /** Verified customers of the tenant that a share of the orders belong to. */
  customers: SeedCustomer[];
  /** The share of orders linked to one of `customers` (0–1). */
  linkedShare: number;
  /** Orders of the seed written before this batch, and in all: times rise across batches. */
  offset: number;
  total: number;
}

export interface SeedCustomer {
  id: number;
  name: string;
  email: string;
}

/**
 * One batch of `seed orders` (docs/BEHAVIOUR.md#admin-cli) as one set-based statement: `$2` orders
 * of the tenant (`$1`) with 1–3 lines each from the active catalog (exact totals in minor units),
 * statuses spread along the state machine, `created_at` over the past `$3` days and `updated_at`
 * after it (equal while pending), in time order across the seed (this batch starts after `$8` of
 * its `$9` orders), a share `$7` linked to the customers `$4` (their names and emails
 * `$5`, `$6`) and a fifth from marketplaces. Each status with its fulfillment, refund and
 * cancellation state (no fulfillment or refund rows: bulk data for the benchmarks). No events.
 *
 * `ownCounts`: the statement appends the order counters' deltas itself, once for the batch, as
 * the orders' count trigger would (migration 1764300000001); for a unit of work that skips the
 * triggers (writeBatch). Either way the tenant, the products and the customers it references
 * are locked FOR KEY SHARE, as the foreign keys' checks would lock them, so none can go
 * while the batch commits (a customer gone before it: the batch links no order to anyone).
 *
 * Ids are drawn from the orders' identity sequence first, so lines and orders meet on them.
 * Random values sit in select lists, where they are drawn per row.
 */
const seedOrderBatch = (ownCounts: boolean) => `WITH
  tenant AS (SELECT currency FROM tenants WHERE id = $1 FOR KEY SHARE),
  catalog AS (
    SELECT array_agg(id ORDER BY id) AS ids, array_agg(sku ORDER BY id) AS skus,
      array_agg(name ORDER BY id) AS names, array_agg(price_minor ORDER BY id) AS prices,
      count(*)::int AS n
    FROM (SELECT id, sku, name, price_minor FROM products WHERE tenant_id = $1 AND active
      FOR KEY SHARE) AS p),
  owners AS (
    SELECT count(*) = cardinality($4::bigint[]) AS present
    FROM (SELECT 1 FROM customers WHERE tenant_id = $1 AND id = ANY($4::bigint[])
      FOR KEY SHARE) AS c),
  order_ids AS (SELECT pg_get_serial_sequence('orders', 'id')::regclass AS name),
  drafts AS (
    SELECT nextval(q.name) AS id,
      -- In time order across the whole seed (batch offset $8 of $9 orders), as real orders
      -- are: ids and times rise together, and each index grows at its end.
      now() - $3::int * interval '1 day' * (1 - ($8::int + g - random()) / $9::int) AS created_at,
      random() AS status_roll, random() AS link_roll, random() AS source_roll,
      1 + floor(random() * 3)::int AS line_count,
      1 + floor(random() * greatest(cardinality($4::bigint[]), 1))::int AS customer_pick,
      1 + floor(random() * 5)::int AS place
    FROM order_ids q CROSS JOIN generate_series(1, $2::int) AS g),
  picks AS (
    SELECT d.id AS order_id, l AS line_no, 1 + floor(random() * c.n)::int AS p,
      1 + floor(random() * 3)::int AS quantity
    FROM drafts d CROSS JOIN catalog c CROSS JOIN LATERAL generate_series(1, d.line_count) AS l),
  lines AS (
    SELECT k.order_id, k.line_no, c.ids[k.p] AS product_id, c.skus[k.p] AS sku,
      c.names[k.p] AS name, k.quantity, c.prices[k.p] AS unit_price, c.prices[k.p] * k.quantity AS total
    FROM picks k CROSS JOIN catalog c),
  totals AS (SELECT order_id, sum(total)::bigint AS total FROM lines GROUP BY order_id),
  shaped AS (
    SELECT d.*,
      CASE WHEN d.status_roll < 0.10 THEN 'pending' WHEN d.status_roll < 0.25 THEN 'paid'
        WHEN d.status_roll < 0.35 THEN 'preparing' WHEN d.status_roll < 0.75 THEN 'shipped'
        WHEN d.status_roll < 0.88 THEN 'cancelled' ELSE 'refunded' END AS status,
      CASE WHEN d.link_roll < $7::float8 AND cardinality($4::bigint[]) > 0 AND w.present
        THEN d.customer_pick END AS customer_index,
      CASE WHEN d.source_roll < 0.2
        THEN (ARRAY['amazon', 'trendyol', 'etsy'])[1 + floor(d.source_roll * 15)::int] END AS marketplace
    FROM drafts d CROSS JOIN owners w),
  -- What each status implies, as the API's own changes leave it: shipped orders fulfilled,
  -- refunded ones refunded in full (not shipped first), cancelled ones for reason other.
  staged AS (
    SELECT s.*,
      CASE WHEN s.status = 'pending' THEN s.created_at
        ELSE s.created_at + random() * least(now() - s.created_at, interval '14 days') END AS changed_at
    FROM shaped s),
  o AS (
    INSERT INTO orders (id, tenant_id, status, currency, total_minor, customer_id, customer_name,
      customer_email, shipping_country, shipping_city, shipping_address, shipping_postal_code,
      source, marketplace, external_order_id, created_at, updated_at, fulfillment_status,
      refunded_minor, cancel_reason, cancelled_at)
    OVERRIDING SYSTEM VALUE
    SELECT s.id, $1, s.status, t.currency, tt.total, ($4::bigint[])[s.customer_index],
      coalesce(($5::text[])[s.customer_index], 'Guest ' || s.id),
      coalesce(($6::text[])[s.customer_index], 'guest-' || s.id || '@example.com'),
      (ARRAY['TR', 'DE', 'US', 'GB', 'FR'])[s.place],
      (ARRAY['Istanbul', 'Berlin', 'Chicago', 'Leeds', 'Lyon'])[s.place],
      'Street ' || (s.id % 500 + 1), lpad((s.id % 90000 + 10000)::text, 5, '0'),
      CASE WHEN s.marketplace IS NULL THEN 'api' ELSE 'marketplace' END, s.marketplace,
      CASE WHEN s.marketplace IS NULL THEN NULL ELSE 'SEED-' || s.id END,
      s.created_at, s.changed_at,
      CASE WHEN s.status = 'shipped' THEN 'fulfilled' ELSE 'unfulfilled' END,
      CASE WHEN s.status = 'refunded' THEN tt.total ELSE 0 END,
      CASE WHEN s.status = 'cancelled' THEN 'other' END,
      CASE WHEN s.status = 'cancelled' THEN s.changed_at END
    FROM staged s CROSS JOIN tenant t JOIN totals tt ON tt.order_id = s.id
    ORDER BY s.id
    RETURNING 1),
  items AS (
    INSERT INTO order_items (tenant_id, order_id, line_no, product_id, sku, name, quantity,
      unit_price_minor, total_minor, fulfilled_quantity, refunded_quantity)
    SELECT $1, l.order_id, l.line_no, l.product_id, l.sku, l.name, l.quantity, l.unit_price,
      l.total, CASE WHEN s.status = 'shipped' THEN l.quantity ELSE 0 END,
      CASE WHEN s.status = 'refunded' THEN l.quantity ELSE 0 END
    FROM lines l JOIN shaped s ON s.id = l.order_id
    ORDER BY l.order_id, l.line_no)${
      ownCounts
        ? `,
  -- The tenant's counter (customer 0) and each linked customer's, by status.
  counted AS (
    INSERT INTO order_count_deltas (tenant_id, customer_id, status, delta)
    SELECT $1, k.customer_id, s.status, count(*)
    FROM shaped s
    CROSS JOIN LATERAL (VALUES (0::bigint), (($4::bigint[])[s.customer_index])) AS k(customer_id)
    WHERE k.customer_id IS NOT NULL
    GROUP BY k.customer_id, s.status)`
        : ''
    }
  SELECT count(*)::int AS written FROM o`;

const SEED_ORDER_BATCH = seedOrderBatch(false);
const SEED_ORDER_BATCH_COUNTED = seedOrderBatch(true);

/**
 * Turns off, for the rest of the unit of work, the per-row triggers of the rows it writes (the
 * foreign keys' checks, five a seeded order) and the orders' count trigger, where the role may:
 * a seed batch does their work once for the batch instead. One row when it did.
 */
const SKIP_TRIGGERS = `SELECT set_config('session_replication_role', 'replica', true)
  WHERE $1::bigint > 0 AND has_parameter_privilege('session_replication_role', 'SET')`;

/**
 * `seed orders`' statements: generated orders in set-based batches (no events, so no
 * webhooks), the customers they belong to, and the tables' upkeep afterwards.
 */
@Injectable()
export class SeedOrdersRepository {
  /** Whether the tenant exists, and how many active products it has to order. */
  async catalog(db: TenantSql): Promise<{ tenant: boolean; products: number }> {
    const [row] = await db.rows<{ tenant: boolean; products: number }>(
      `SELECT EXISTS (SELECT 1 FROM tenants WHERE id = $1) AS tenant,
         (SELECT count(*)::int FROM products WHERE tenant_id = $1 AND active) AS products`,
    );
    return row;
  }

  /** The tenant's first `limit` customers with a verified email, by id. */
  verifiedCustomers(db: TenantSql, limit: number): Promise<SeedCustomer[]> {
    return db.rows<SeedCustomer>(
      `SELECT id, name, email FROM customers WHERE tenant_id = $1 AND email_verified
       ORDER BY id LIMIT $2`,
      [limit],
    );
  }

  /**
   * Adds `missing` verified customers with the first free `seed-customer-N` addresses
   * (N up to `missing + wanted`), all with the password hash `hash`.
   */
  async addSeedCustomers(
    db: TenantSql,
    missing: number,
    hash: string,
    wanted: number,
  ): Promise<void> {
    await db.count(
      `INSERT INTO customers (tenant_id, name, email, password_hash, email_verified)
       SELECT $1, 'Seed customer ' || n, 'seed-customer-' || n || '@example.com', $3, true
       FROM generate_series(1, $4::int + $2::int) AS n
       WHERE NOT EXISTS (SELECT 1 FROM customers c WHERE c.tenant_id = $1
         AND lower(c.email) = 'seed-customer-' || n || '@example.com')
       ORDER BY n LIMIT $2
       ON CONFLICT DO NOTHING`,
      [missing, hash, wanted],
    );
  }

  /**
   * Writes one batch of generated orders with their lines; returns how many orders. In a unit
   * of work of its own: it turns the triggers off for the rest of it (SKIP_TRIGGERS).
   */
  async writeBatch(db: TenantSql, batch: SeedBatch): Promise<number> {
    const skipped = (await db.rows(SKIP_TRIGGERS)).length === 1;
    const statement = skipped ? SEED_ORDER_BATCH_COUNTED : SEED_ORDER_BATCH;
    const [row] = await db.rows<{ written: number }>(statement, [
      batch.count,
      batch.days,
      batch.customers.map((c) => c.id),
      batch.customers.map((c) => c.name),
      batch.customers.map((c) => c.email),
      batch.linkedShare,
      batch.offset,
      batch.total,
    ]);
    return row.written;
  }

  /**
   * Fresh planner statistics and visibility map of the seeded tables: without them, the
   * list's plans at a million orders are several times slower. Outside any unit of work:
   * VACUUM cannot run in a transaction.
   */
  async refreshStatistics(db: CrossTenantSql, customers: boolean): Promise<void> {
    await db.rows('VACUUM (ANALYZE) orders, order_items');
    if (customers) await db.rows('ANALYZE customers');
  }
}
