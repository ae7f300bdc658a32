import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An erasure finds a person's marketplace imports by the payload's email, and the imports of
 * their orders by order id: two indexes, so that it reads only those rows (not every import of
 * the tenant under its locks). Built CONCURRENTLY, outside any transaction, so imports stay
 * writable; each step can run again after a failure half-way.
 */
export class ErasureImportIndexes1769000000002 implements MigrationInterface {
  name = 'ErasureImportIndexes1769000000002';
  /** CREATE INDEX CONCURRENTLY cannot run inside a transaction (run-migrations.ts: 'each'). */
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS marketplace_imports_email_idx`);
    await q.query(
      `CREATE INDEX CONCURRENTLY marketplace_imports_email_idx
       ON marketplace_imports (tenant_id, lower(payload->'customer'->>'email'))`,
    );
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS marketplace_imports_order_idx`);
    await q.query(
      `CREATE INDEX CONCURRENTLY marketplace_imports_order_idx
       ON marketplace_imports (tenant_id, order_id) WHERE order_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS marketplace_imports_order_idx`);
    await q.query(`DROP INDEX IF EXISTS marketplace_imports_email_idx`);
  }
}
