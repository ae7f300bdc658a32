import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The GIN indexes of the `tag` and `metadata[KEY]` list filters (migration 1766000000001) hold
 * only the orders with a tag or a metadata key: an order without any (most of them, and every
 * order `seed orders` writes) can never match those filters, yet each insert evaluated both
 * key functions and added two empty-item entries. That was a fifth of `seed orders`' time at
 * 1,000,000 orders. The filters state the predicates (order-list.sql.ts), so the planner
 * still picks these indexes.
 *
 * Rebuilt under the same names, CONCURRENTLY, outside a transaction, so a live tenant's
 * writes go on during the build; re-runnable after a failure half-way (an invalid leftover is
 * dropped and built again). `down` runs in the migration transaction (TypeORM's revert always
 * opens one), so it rebuilds with plain CREATE INDEX, which blocks writes to `orders`.
 */
const INDEXES = [
  {
    name: 'orders_tag_keys_idx',
    expression: 'order_tag_keys(tenant_id, tag_keys)',
    predicate: `tag_keys <> '{}'::text[]`,
  },
  {
    name: 'orders_metadata_keys_idx',
    expression: 'order_metadata_keys(tenant_id, metadata)',
    predicate: `metadata <> '{}'::jsonb`,
  },
];

export class OrderFilterKeysPartialIndexes1772000000000 implements MigrationInterface {
  name = 'OrderFilterKeysPartialIndexes1772000000000';
  /** CREATE INDEX CONCURRENTLY cannot run inside a transaction (run-migrations.ts: 'each'). */
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    for (const { name, expression, predicate } of INDEXES) {
      const building = `${name}_partial`;
      await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${building}`);
      await q.query(
        `CREATE INDEX CONCURRENTLY ${building} ON orders USING gin ((${expression})) WHERE ${predicate}`,
      );
      await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      await q.query(`ALTER INDEX ${building} RENAME TO ${name}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { name, expression } of INDEXES) {
      await q.query(`DROP INDEX ${name}`);
      await q.query(`CREATE INDEX ${name} ON orders USING gin ((${expression}))`);
    }
  }
}
