import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The part of migration 1767000000000 that reads whole tables, outside any transaction so
 * that orders and products stay writable throughout: the rules it added NOT VALID are
 * validated (a scan that blocks no reads or writes), and the index of the product list's
 * `updated_after` filter is built CONCURRENTLY. Each step can run again after a failure
 * half-way.
 */
export class ProductInventoryIndexes1767000000001 implements MigrationInterface {
  name = 'ProductInventoryIndexes1767000000001';
  /** CREATE INDEX CONCURRENTLY cannot run inside a transaction (run-migrations.ts: 'each'). */
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    for (const [table, constraint] of [
      ['order_items', 'order_items_stock_held_check'],
      ['products', 'products_version_check'],
      ['products', 'products_available_check'],
    ]) {
      await q.query(`ALTER TABLE ${table} VALIDATE CONSTRAINT ${constraint}`);
    }
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS products_updated_idx`);
    await q.query(
      `CREATE INDEX CONCURRENTLY products_updated_idx ON products (tenant_id, updated_at, id)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS products_updated_idx`);
  }
}
