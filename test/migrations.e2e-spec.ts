import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataSourceOptions } from '../src/database/data-source-options.js';
import { MIGRATIONS } from '../src/database/migrations/index.js';
import { runMigrations } from '../src/database/run-migrations.js';
import { createEmptyDatabase } from './support/test-database.js';

const TABLES = [
  'app_clients',
  'app_tokens',
  'apps',
  'audit_log',
  'customer_refresh_chains',
  'customer_refresh_tokens',
  'customer_sessions',
  'customer_tickets',
  'customers',
  'event_purges',
  'events',
  'fulfillments',
  'idempotency_keys',
  'import_clock',
  'import_lanes',
  'marketplace_imports',
  'order_count_deltas',
  'order_counts',
  'order_items',
  'order_status_changes',
  'orders',
  'products',
  'rate_limits',
  'refunds',
  'service_settings',
  'tenants',
  'webhook_deliveries',
  'webhook_dispatch',
  'webhook_endpoints',
];

/** The migrations after the order-operations ones, undone and run again by its test. */
const LATER_THAN_ORDER_OPERATIONS = [
  'ProductInventory1767000000000',
  'ProductInventoryIndexes1767000000001',
  'CustomerRefreshChains1768000000000',
  'CustomerErasure1769000000000',
  'CustomerErasureChecks1769000000001',
  'ErasureImportIndexes1769000000002',
  'TicketTokenPerTenant1770000000000',
  'TenantKeys1770000000001',
  'ImportFairQueue1770000000002',
  'DatabaseId1770000000003',
  'IdempotencyOrderIds1770100000000',
  'EventSizes1771000000000',
  'CurrencyMinorUnits1771000000300',
  'OrderFilterKeysPartialIndexes1772000000000',
];
/** The migrations from the currency one on, undone and run again by its test. */
const FROM_CURRENCY_MINOR_UNITS = LATER_THAN_ORDER_OPERATIONS.slice(
  LATER_THAN_ORDER_OPERATIONS.indexOf('CurrencyMinorUnits1771000000300'),
);
const undoFromCurrencyMinorUnits = async (dataSource: DataSource) => {
  for (const _ of FROM_CURRENCY_MINOR_UNITS) {
    await dataSource.undoLastMigration({ transaction: 'each' });
  }
};
describe('migrations', () => {
  let dataSource: DataSource;
  beforeAll(async () => {
    dataSource = new DataSource(
      dataSourceOptions(await createEmptyDatabase(), { size: 2, audited: false }),
    );
    await dataSource.initialize();
  });
  afterAll(() => dataSource.destroy());

  /** Undoes the migrations from `name` to the last; returns them in the order they run. */
  async function undoFrom(name: string): Promise<string[]> {
    const undone = LATER_THAN_ORDER_OPERATIONS.slice(LATER_THAN_ORDER_OPERATIONS.indexOf(name));
    for (const _ of undone) await dataSource.undoLastMigration({ transaction: 'each' });
    return undone;
  }

  async function tables(): Promise<string[]> {
    const rows: Array<{ table_name: string }> = await dataSource.query(
      `SELECT table_name FROM information_schema.tables
       WHERE table_schema = 'public' AND table_name <> 'schema_migrations' ORDER BY table_name`,
    );
    return rows.map((r) => r.table_name);
  }

  it('run up from an empty database, all the way down, and up again', async () => {
    expect(await tables()).toEqual([]);
    expect(await runMigrations(dataSource)).toHaveLength(MIGRATIONS.length);
    expect(await tables()).toEqual(TABLES);
    expect(await runMigrations(dataSource)).toEqual([]);

    for (let i = 0; i < MIGRATIONS.length; i++)
      await dataSource.undoLastMigration({ transaction: 'each' });
    expect(await tables()).toEqual([]);

    await runMigrations(dataSource);
    expect(await tables()).toEqual(TABLES);
  });

  it('indexes every tenant-owned table by tenant first', async () => {
    const rows: Array<{ table: string; first_column: string }> = await dataSource.query(`
      SELECT t.relname AS table, a.attname AS first_column
      FROM pg_index i
      JOIN pg_class t ON t.oid = i.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = 'public'
      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]
`);
    // These hold no tenant's data; app_clients is the directory of client ids, keyed by id.
    const tenantOwned = TABLES.filter(
      (t) =>
        ![
          'tenants',
          'rate_limits',
          'service_settings',
          'webhook_dispatch',
          'app_clients',
          'import_clock',
        ].includes(t),
    );
    const withTenantIndex = tenantOwned.filter((table) =>
      rows.some((r) => r.table === table && r.first_column === 'tenant_id'),
    );
    expect(withTenantIndex).toEqual(tenantOwned);
  });

  it('refuses cross-tenant references at the database level', async () => {
    const [a] = await dataSource.query(
      `INSERT INTO tenants (name, currency) VALUES ('A', 'USD') RETURNING id`,
    );
    const [b] = await dataSource.query(
      `INSERT INTO tenants (name, currency) VALUES ('B', 'USD') RETURNING id`,
    );
    const [product] = await dataSource.query(
      `INSERT INTO products (tenant_id, sku, name, price_minor) VALUES ($1, 'S', 'N', 100) RETURNING id`,
      [a.id],
    );
    const [order] = await dataSource.query(
      `INSERT INTO orders (tenant_id, currency, total_minor, customer_name, customer_email,
         shipping_country, shipping_city, shipping_address)
       VALUES ($1, 'USD', 100, 'n', 'e@x.io', 'TR', 'Istanbul', 'Street 1') RETURNING id`,
      [b.id],
    );
    await expect(
      dataSource.query(
        `INSERT INTO order_items (tenant_id, order_id, line_no, product_id, sku, name, quantity,
           unit_price_minor, total_minor) VALUES ($1, $2, 1, $3, 'S', 'N', 1, 100, 100)`,
        [b.id, order.id, product.id],
      ),
    ).rejects.toThrow(/foreign key/);
  });

  it('order operations: existing orders read as version 1, their lines numbered, legacy statuses given their state', async () => {
    // Back to before the order-operations migrations (and the product-inventory ones after
    // them), with orders written then.
    for (let undone = 0; undone < LATER_THAN_ORDER_OPERATIONS.length + 2; undone++) {
      await dataSource.undoLastMigration({ transaction: 'each' });
    }
    const [legacyProduct] = await dataSource.query(
      `INSERT INTO products (tenant_id, sku, name, price_minor)
       SELECT id, 'LEGACY', 'Legacy', 100 FROM tenants ORDER BY id LIMIT 1 RETURNING tenant_id, id`,
    );
    const [tenant] = await dataSource.query(
      `INSERT INTO tenants (name, currency) VALUES ('Legacy', 'EUR') RETURNING id`,
    );
    const orderIds: Record<string, number> = {};
    for (const status of [
      'pending',
      'paid',
      'shipped',
      'refunded',
      'refunded-unshipped',
      'cancelled',
    ]) {
      const [order] = await dataSource.query(
        `INSERT INTO orders (tenant_id, currency, total_minor, customer_name, customer_email,
           shipping_country, shipping_city, shipping_address, status)
         VALUES ($1, 'EUR', 700, 'n', 'e@x.io', 'TR', 'Istanbul', 'Street 1', $2) RETURNING id`,
        [tenant.id, status.split('-')[0]],
      );
      orderIds[status] = Number(order.id);
      await dataSource.query(
        `INSERT INTO order_items (tenant_id, order_id, line_no, sku, name, quantity, unit_price_minor, total_minor)
         VALUES ($1, $2, 1, 'A', 'A', 2, 100, 200), ($1, $2, 2, 'B', 'B', 5, 100, 500)`,
        [tenant.id, order.id],
      );
    }
    const history = (order: string, to: string, at: string) =>
      dataSource.query(
        `INSERT INTO order_status_changes (tenant_id, order_id, from_status, to_status, actor, changed_at)
         VALUES ($1, $2, 'x', $3, 'test', $4)`,
        [tenant.id, orderIds[order], to, at],
      );
    await history('shipped', 'shipped', '2026-01-02T00:00:00Z');
    await history('refunded', 'shipped', '2026-01-03T00:00:00Z');
    await history('refunded', 'refunded', '2026-01-04T00:00:00Z');
    await history('cancelled', 'cancelled', '2026-01-05T00:00:00Z');

    expect(await runMigrations(dataSource)).toEqual([
      'OrderOperations1766000000000',
      'OrderOperationsBackfill1766000000001',
      ...LATER_THAN_ORDER_OPERATIONS,
    ]);
    // Products and lines of before stock: untracked at version 1, holding nothing.
    const [product] = await dataSource.query(
      `SELECT inventory_tracked, available::int, version FROM products WHERE tenant_id = $1 AND id = $2`,
      [legacyProduct.tenant_id, legacyProduct.id],
    );
    expect(product).toEqual({ inventory_tracked: false, available: 0, version: 1 });
    const held: Array<{ stock_held: number }> = await dataSource.query(
      `SELECT DISTINCT stock_held FROM order_items WHERE tenant_id = $1`,
      [tenant.id],
    );
    expect(held).toEqual([{ stock_held: 0 }]);
    const orders: Array<Record<string, unknown>> = await dataSource.query(
      `SELECT id::int, version, fulfillment_status, refunded_minor::int, cancel_reason,
         cancelled_at, tags, metadata, note FROM orders WHERE tenant_id = $1 ORDER BY id`,
      [tenant.id],
    );
    const state = (name: string) => orders.find((o) => o.id === orderIds[name])!;
    for (const order of orders) {
      expect(order).toMatchObject({ version: 1, tags: [], metadata: {}, note: null });
    }
    expect(state('pending')).toMatchObject({
      fulfillment_status: 'unfulfilled',
      refunded_minor: 0,
    });
    expect(state('paid')).toMatchObject({ fulfillment_status: 'unfulfilled', refunded_minor: 0 });
    expect(state('shipped')).toMatchObject({ fulfillment_status: 'fulfilled', refunded_minor: 0 });
    expect(state('refunded')).toMatchObject({
      fulfillment_status: 'fulfilled',
      refunded_minor: 700,
    });
    expect(state('refunded-unshipped')).toMatchObject({
      fulfillment_status: 'unfulfilled',
      refunded_minor: 700,
    });
    expect(state('cancelled')).toMatchObject({
      cancel_reason: 'other',
      cancelled_at: new Date('2026-01-05T00:00:00Z'),
    });

    const lines: Array<{
      order_id: number;
      id: string | null;
      fulfilled: number;
      refunded: number;
    }> = await dataSource.query(
      `SELECT order_id::int, id, fulfilled_quantity AS fulfilled, refunded_quantity AS refunded
         FROM order_items WHERE tenant_id = $1 ORDER BY order_id, line_no`,
      [tenant.id],
    );
    expect(lines.every((l) => l.id !== null)).toBe(true);
    expect(new Set(lines.map((l) => l.id)).size).toBe(lines.length);
    const quantities = (name: string) =>
      lines.filter((l) => l.order_id === orderIds[name]).map((l) => [l.fulfilled, l.refunded]);
    expect(quantities('shipped')).toEqual([
      [2, 0],
      [5, 0],
    ]);
    expect(quantities('refunded')).toEqual([
      [2, 2],
      [5, 5],
    ]);
    expect(quantities('refunded-unshipped')).toEqual([
      [0, 2],
      [0, 5],
    ]);
    expect(quantities('paid')).toEqual([
      [0, 0],
      [0, 0],
    ]);

    const fulfillments: Array<{ order_id: number; created_at: Date; items: unknown }> =
      await dataSource.query(
        `SELECT order_id::int, created_at, items FROM fulfillments WHERE tenant_id = $1 ORDER BY order_id`,
        [tenant.id],
      );
    expect(fulfillments.map((f) => [f.order_id, f.created_at.toISOString()])).toEqual([
      [orderIds.shipped, '2026-01-02T00:00:00.000Z'],
      [orderIds.refunded, '2026-01-03T00:00:00.000Z'],
    ]);
    const refunds: Array<{ order_id: number; amount_minor: string; restocked: boolean }> =
      await dataSource.query(
        `SELECT order_id::int, amount_minor, restocked FROM refunds WHERE tenant_id = $1 ORDER BY order_id`,
        [tenant.id],
      );
    expect(refunds.map((r) => [r.order_id, Number(r.amount_minor), r.restocked])).toEqual([
      [orderIds.refunded, 700, false],
      [orderIds['refunded-unshipped'], 700, false],
    ]);

    // New lines take ids from the sequence; the column is NOT NULL and unique per tenant.
    const [column] = await dataSource.query(
      `SELECT is_nullable FROM information_schema.columns
       WHERE table_name = 'order_items' AND column_name = 'id'`,
    );
    expect(column.is_nullable).toBe('NO');
    const invalid: unknown[] = await dataSource.query(
      `SELECT conname FROM pg_constraint WHERE NOT convalidated AND conrelid IN
         ('orders'::regclass, 'order_items'::regclass, 'products'::regclass)`,
    );
    expect(invalid).toEqual([]);
  });

  it('idempotency order ids: stored Orders name their order (in batches), others none; indexed', async () => {
    const undone = await undoFrom('IdempotencyOrderIds1770100000000');
    const [tenant] = await dataSource.query(
      `INSERT INTO tenants (name, currency) VALUES ('Keys before', 'EUR') RETURNING id`,
    );
    const [app] = await dataSource.query(
      `INSERT INTO apps (tenant_id, name, client_id, secret_hash, secret_last4, approved_scopes)
       VALUES ($1, 'Old', 'app_idempotency_before', '\\x00', 'abcd', '{}') RETURNING id`,
      [tenant.id],
    );
    // 4,500 keys (three batches): every third an Order, the others an import's ack or a refund.
    await dataSource.query(
      `INSERT INTO idempotency_keys (tenant_id, app_id, method, path, key, request_hash,
         response_status, response_body, expires_at)
       SELECT $1, $2, 'POST', '/v1/orders', 'k-' || g, '\\x00', 201,
         CASE g % 3
           WHEN 0 THEN jsonb_build_object('id', g, 'shipping_address', jsonb_build_object('city', 'X'))
           WHEN 1 THEN jsonb_build_object('status', 'queued', 'external_order_id', 'E' || g)
           ELSE jsonb_build_object('id', g, 'order_id', 7, 'amount', 1)
         END,
         now() + interval '1 day'
       FROM generate_series(1, 4500) g`,
      [tenant.id, app.id],
    );
    expect(await runMigrations(dataSource)).toEqual(undone);
    const named: Array<{ key: string; order_id: string | null }> = await dataSource.query(
      `SELECT key, order_id::text FROM idempotency_keys WHERE tenant_id = $1`,
      [tenant.id],
    );
    expect(named).toHaveLength(4500);
    for (const { key, order_id } of named) {
      const g = Number(key.slice(2));
      expect({ key, order_id }).toEqual({ key, order_id: g % 3 === 0 ? String(g) : null });
    }
    const [index] = await dataSource.query(
      `SELECT pg_get_indexdef(i.indexrelid) AS def, i.indisvalid AS valid FROM pg_index i
       WHERE i.indexrelid = 'idempotency_keys_order_idx'::regclass`,
    );
    expect(index).toEqual({
      def: expect.stringContaining('(tenant_id, order_id) WHERE (order_id IS NOT NULL)'),
      valid: true,
    });
  });

  it('tenant keys: existing apps enter the client directory; an audit row of no tenant stops it', async () => {
    const fromTenantKeys = LATER_THAN_ORDER_OPERATIONS.slice(
      LATER_THAN_ORDER_OPERATIONS.indexOf('TenantKeys1770000000001'),
    );
    for (const _ of fromTenantKeys) await dataSource.undoLastMigration({ transaction: 'each' });
    const [tenant] = await dataSource.query(
      `INSERT INTO tenants (name, currency) VALUES ('Keys', 'EUR') RETURNING id`,
    );
    // The failed run below gets half-way (the directory is made); the next run completes it.
    await dataSource.query(
      `INSERT INTO apps (tenant_id, name, client_id, secret_hash, secret_last4, approved_scopes)
       VALUES ($1, 'Old', 'app_before_directory', '\\x00', 'abcd', '{}')`,
      [tenant.id],
    );
    const [orphan] = await dataSource.query(
      `INSERT INTO audit_log (tenant_id, actor, action, target_type, target_id)
       VALUES (NULL, 'admin', 'x', 'y', 'z') RETURNING id`,
    );
    await expect(runMigrations(dataSource)).rejects.toThrow(/audit_log has 1 rows of no tenant/);

    await dataSource.query('DELETE FROM audit_log WHERE id = $1', [orphan.id]);
    expect(await runMigrations(dataSource)).toEqual(fromTenantKeys);
    expect(
      await dataSource.query('SELECT tenant_id::int FROM app_clients WHERE client_id = $1', [
        'app_before_directory',
      ]),
    ).toEqual([{ tenant_id: Number(tenant.id) }]);
    const keys: Array<{ tbl: string; def: string }> = await dataSource.query(
      `SELECT conrelid::regclass::text AS tbl, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE contype = 'p' AND conrelid::regclass::text IN ('app_tokens', 'customer_sessions', 'audit_log')
       ORDER BY 1`,
    );
    expect(keys).toEqual([
      { tbl: 'app_tokens', def: 'PRIMARY KEY (tenant_id, jti)' },
      { tbl: 'audit_log', def: 'PRIMARY KEY (tenant_id, id)' },
      { tbl: 'customer_sessions', def: 'PRIMARY KEY (tenant_id, id)' },
    ]);
    await expect(
      dataSource.query(
        `INSERT INTO app_clients (client_id, tenant_id) VALUES ('app_before_directory', $1)`,
        [tenant.id],
      ),
    ).rejects.toThrow(/app_clients_pkey/);
  });

  it('currency minor units: amounts of tenants whose currency has other digits leave hundredths', async () => {
    await undoFromCurrencyMinorUnits(dataSource);
    const legacy = async (currency: string, price: number, quantity: number, refunded: number) => {
      const [tenant] = await dataSource.query(
        `INSERT INTO tenants (name, currency) VALUES ($1::text, $1::text) RETURNING id`,
        [currency],
      );
      const [product] = await dataSource.query(
        `INSERT INTO products (tenant_id, sku, name, price_minor) VALUES ($1, 'S', 'N', $2) RETURNING id`,
        [tenant.id, price],
      );
      const status = refunded === price * quantity ? 'refunded' : 'paid';
      const [order] = await dataSource.query(
        `INSERT INTO orders (tenant_id, currency, total_minor, refunded_minor, status, customer_name,
           customer_email, shipping_country, shipping_city, shipping_address)
         VALUES ($1, $2, $3, $4, $5, 'n', 'e@x.io', 'JP', 'Tokyo', 'Street 1') RETURNING id`,
        [tenant.id, currency, price * quantity, refunded, status],
      );
      await dataSource.query(
        `INSERT INTO order_items (tenant_id, order_id, line_no, product_id, sku, name, quantity,
           unit_price_minor, total_minor) VALUES ($1, $2, 1, $3, 'S', 'N', $4, $5, $6)`,
        [tenant.id, order.id, product.id, quantity, price, price * quantity],
      );
      if (refunded > 0) {
        await dataSource.query(
          `INSERT INTO refunds (tenant_id, order_id, amount_minor, currency, items, restocked)
           VALUES ($1, $2, $3, $4, '[]', false)`,
          [tenant.id, order.id, refunded, currency],
        );
      }
      return tenant.id as string;
    };
    const amounts = async (tenantId: string) => {
      const [row] = await dataSource.query(
        `SELECT p.price_minor::int AS price, i.unit_price_minor::int AS unit,
           i.total_minor::int AS line, o.total_minor::int AS total, o.refunded_minor::int AS refunded,
           (SELECT coalesce(sum(amount_minor), 0)::int FROM refunds r
            WHERE r.tenant_id = o.tenant_id AND r.order_id = o.id) AS refunds
         FROM products p, orders o JOIN order_items i ON i.tenant_id = o.tenant_id AND i.order_id = o.id
         WHERE p.tenant_id = $1 AND o.tenant_id = $1`,
        [tenantId],
      );
      return row;
    };
    // ¥1,200 × 3 with ¥100 refunded; ¥100.50 × 2 refunded in full (a fraction the service
    // took before); KWD 19.99 × 2 with 1.00 refunded; USD untouched.
    const yen = await legacy('JPY', 120_000, 3, 10_000);
    const halfYen = await legacy('JPY', 10_050, 2, 20_100);
    const dinar = await legacy('KWD', 1_999, 2, 100);
    const dollar = await legacy('USD', 1_999, 2, 100);

    expect(await runMigrations(dataSource)).toEqual(FROM_CURRENCY_MINOR_UNITS);
    expect(await amounts(yen)).toEqual({
      price: 1200,
      unit: 1200,
      line: 3600,
      total: 3600,
      refunded: 100,
      refunds: 100,
    });
    expect(await amounts(halfYen)).toEqual({
      price: 101,
      unit: 101,
      line: 202,
      total: 202,
      refunded: 202,
      refunds: 201,
    });
    expect(await amounts(dinar)).toEqual({
      price: 19_990,
      unit: 19_990,
      line: 39_980,
      total: 39_980,
      refunded: 1000,
      refunds: 1000,
    });
    const usd = { price: 1999, unit: 1999, line: 3998, total: 3998, refunded: 100, refunds: 100 };
    expect(await amounts(dollar)).toEqual(usd);

    // Down gives back hundredths (exactly, where nothing was rounded), and up again.
    await undoFromCurrencyMinorUnits(dataSource);
    expect(await amounts(yen)).toMatchObject({ price: 120_000, total: 360_000, refunded: 10_000 });
    expect(await amounts(dinar)).toMatchObject({ price: 1_999, total: 3_998, refunded: 100 });
    expect(await amounts(dollar)).toEqual(usd);
    expect(await runMigrations(dataSource)).toEqual(FROM_CURRENCY_MINOR_UNITS);
    expect(await amounts(yen)).toMatchObject({ price: 1200, total: 3600, refunded: 100 });
  });
});
