import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Validates the erasure rules of the migration before it: a scan under a lock that lets reads
 * and writes go on (SHARE UPDATE EXCLUSIVE).
 */
export class CustomerErasureChecks1769000000001 implements MigrationInterface {
  name = 'CustomerErasureChecks1769000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE customers VALIDATE CONSTRAINT customers_erased_check`);
    await q.query(`ALTER TABLE orders VALIDATE CONSTRAINT orders_erased_check`);
  }

  /** A validated rule reads as NOT VALID again only by being re-added; nothing to undo. */
  async down(): Promise<void> {}
}
