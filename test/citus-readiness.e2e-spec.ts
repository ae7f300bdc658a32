import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { inspectionDataSource } from './support/inspection-data-source.js';
import { createTestDatabase } from './support/test-database.js';

/**
 * Tables without a tenant: shared by every tenant, and reference tables once the schema is
 * distributed by tenant with Citus (`create_reference_table`). Everything else is a tenant's.
 */
const REFERENCE_TABLES = [
  'import_clock',
  'rate_limits',
  'schema_migrations',
  'service_settings',
  'tenants',
  'webhook_dispatch',
];

/**
 * Reference tables that carry a tenant_id: directories from a key known before the tenant is
 * (a client_id) to its tenant. The key is unique across tenants, which a distributed table
 * could not enforce; they are replicated to every node with the other reference tables.
 */
const DIRECTORY_TABLES = ['app_clients'];

/**
 * The schema against what distributing it by tenant (Citus `create_distributed_table(…,
 * 'tenant_id')`) needs: every tenant table keeps `tenant_id` in its primary key, in every
 * unique constraint or index, and in every foreign key to another tenant table, so that each
 * of them is enforced within one shard. Read from pg_catalog, so a new table or constraint is
 * checked without anyone remembering to.
 */
describe('a Citus-ready schema (pg_catalog)', () => {
  let db: DataSource;
  let tenantTables: Set<string>;

  beforeAll(async () => {
    db = await inspectionDataSource(await createTestDatabase());
    const rows = await db.query<Array<{ name: string; tenanted: boolean }>>(
      `SELECT c.relname AS name,
         EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid
                 AND a.attname = 'tenant_id' AND NOT a.attisdropped) AS tenanted
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')`,
    );
    tenantTables = new Set(
      rows.filter((r) => r.tenanted && !DIRECTORY_TABLES.includes(r.name)).map((r) => r.name),
    );
  });
  afterAll(() => db?.destroy());

  it('every table without tenant_id is one of the named reference tables', async () => {
    const all = await db.query<Array<{ name: string }>>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1`,
    );
    const others = all.map((t) => t.name).filter((t) => !tenantTables.has(t));
    expect(others).toEqual([...REFERENCE_TABLES, ...DIRECTORY_TABLES].sort());
  });

  it('tenant_id is NOT NULL in every tenant table (a distribution column cannot be null)', async () => {
    const nullable = await db.query<Array<{ name: string }>>(
      `SELECT table_name AS name FROM information_schema.columns
       WHERE table_schema = 'public' AND column_name = 'tenant_id' AND is_nullable = 'YES'`,
    );
    expect(nullable.map((t) => t.name)).toEqual([]);
  });

  it('keys, unique indexes and foreign keys of tenant tables include tenant_id', async () => {
    const constraints = await db.query<
      Array<{ tbl: string; kind: string; name: string; cols: string[]; ref: string | null }>
    >(
      `SELECT r.relname AS tbl, c.contype AS kind, c.conname AS name,
         ARRAY(SELECT a.attname::text FROM unnest(c.conkey) k
               JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k) AS cols,
         f.relname AS ref
       FROM pg_constraint c
       JOIN pg_class r ON r.oid = c.conrelid
       JOIN pg_namespace n ON n.oid = r.relnamespace
       LEFT JOIN pg_class f ON f.oid = c.confrelid
       WHERE n.nspname = 'public' AND c.contype IN ('p', 'u', 'f')`,
    );
    // Unique indexes that back no constraint (expression keys such as lower(email)).
    const indexes = await db.query<Array<{ tbl: string; name: string; cols: string[] }>>(
      `SELECT r.relname AS tbl, x.relname AS name,
         ARRAY(SELECT a.attname::text FROM unnest(i.indkey) k
               JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k) AS cols
       FROM pg_index i
       JOIN pg_class r ON r.oid = i.indrelid
       JOIN pg_class x ON x.oid = i.indexrelid
       JOIN pg_namespace n ON n.oid = r.relnamespace
       WHERE n.nspname = 'public' AND i.indisunique
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    );
    const breaks: string[] = [];
    for (const c of constraints) {
      if (!tenantTables.has(c.tbl) || c.cols.includes('tenant_id')) continue;
      if (c.kind === 'f' && !tenantTables.has(c.ref!)) continue;
      const what =
        c.kind === 'p'
          ? 'primary key'
          : c.kind === 'u'
            ? `unique ${c.name}`
            : `foreign key ${c.name}`;
      breaks.push(`${c.tbl}: ${what} (${c.cols.join(', ')}) lacks tenant_id`);
    }
    for (const i of indexes) {
      if (tenantTables.has(i.tbl) && !i.cols.includes('tenant_id')) {
        breaks.push(`${i.tbl}: unique index ${i.name} lacks tenant_id`);
      }
    }
    expect(breaks.sort()).toEqual([]);
  });
});
