import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataSourceOptions } from '../src/database/data-source-options.js';
import { MIGRATIONS } from '../src/database/migrations/index.js';
import { runMigrations } from '../src/database/run-migrations.js';
import { createEmptyDatabase } from './support/test-database.js';

const TABLES = [
  'app_tokens',
  'apps',
  'audit_log',
  'customer_sessions',
  'customer_tickets',
  'customers',
  'event_purges',
  'events',
  'idempotency_keys',
  'marketplace_imports',
  'order_count_deltas',
  'order_counts',
  'order_items',
  'order_status_changes',
  'orders',
  'products',
  'rate_limits',
  'service_settings',
  'tenants',
  'webhook_deliveries',
  'webhook_dispatch',
  'webhook_endpoints',
];

describe('migrations', () => {
  let dataSource: DataSource;
  beforeAll(async () => {
    dataSource = new DataSource(
      dataSourceOptions(await createEmptyDatabase(), { size: 2, audited: false }),
    );
    await dataSource.initialize();
  });
  afterAll(() => dataSource.destroy());

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
    // rate_limits and service_settings hold no tenant's data.
    const tenantOwned = TABLES.filter(
      (t) => !['tenants', 'rate_limits', 'service_settings', 'webhook_dispatch'].includes(t),
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
});
