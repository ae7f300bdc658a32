import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The four list indexes of the two sort keys carry the other timestamp (INCLUDE), so a list
 * sorted by one and filtered by a range of the other (`sort=-updated_at&created_before=…`,
 * `updated_after=…&page=…`) tests the range in the index (an index-only scan) instead of
 * fetching every order it walks past from the heap: at 1,000,000 orders such a walk went from
 * about a second to tens of milliseconds, and a range-first read (order-list-query.ts) of
 * the other index needs no heap either.
 *
 * Rebuilt under the same names, so no index is added: an insert or a status change (never a
 * HOT update: status is indexed) writes the same four entries as before, each 8 bytes wider.
 *
 * Built CONCURRENTLY, outside a transaction, so a live tenant's writes go on during the
 * build; re-runnable after a failure half-way (an invalid leftover is dropped and built
 * again). `down` runs in the migration transaction (TypeORM's revert always opens one), so it
 * rebuilds with plain CREATE INDEX, which blocks writes to `orders` while it runs.
 */
const INDEXES = [
  {
    name: 'orders_list_idx',
    key: 'tenant_id, created_at DESC, id DESC',
    include: 'updated_at',
  },
  {
    name: 'orders_updated_list_idx',
    key: 'tenant_id, updated_at DESC, id DESC',
    include: 'created_at',
  },
  {
    name: 'orders_status_list_idx',
    key: 'tenant_id, status, created_at DESC, id DESC',
    include: 'updated_at',
  },
  {
    name: 'orders_status_updated_idx',
    key: 'tenant_id, status, updated_at DESC, id DESC',
    include: 'created_at',
  },
];

export class OrderListCoveringIndexes1765000000050 implements MigrationInterface {
  name = 'OrderListCoveringIndexes1765000000050';
  /** CREATE INDEX CONCURRENTLY cannot run inside a transaction (run-migrations.ts: 'each'). */
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    for (const { name, key, include } of INDEXES) {
      const building = `${name}_covering`;
      await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${building}`);
      await q.query(
        `CREATE INDEX CONCURRENTLY ${building} ON orders (${key}) INCLUDE (${include})`,
      );
      await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      await q.query(`ALTER INDEX ${building} RENAME TO ${name}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { name, key } of INDEXES) {
      await q.query(`DROP INDEX ${name}`);
      await q.query(`CREATE INDEX ${name} ON orders (${key})`);
    }
  }
}
