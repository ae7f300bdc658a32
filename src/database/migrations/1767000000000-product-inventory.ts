import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Catalog by API and stock (docs/BEHAVIOUR.md#products-and-stock): a product's stock
 * (`inventory_tracked`, `available`) and `version`; per order line the units it holds out of
 * its product's stock (`stock_held`: taken when the order was written, less what a cancel or
 * a refund gave back).
 *
 * Constant defaults only, so PostgreSQL records them in the catalog instead of rewriting the
 * tables: existing products read as untracked at version 1, existing lines as holding nothing
 * (no stock was counted when they were sold). The rules are added NOT VALID (checked for new
 * and changed rows) and validated by the next migration, outside this one's lock. The bound
 * on `available` keeps it an exact JSON number; the API keeps its own changes far inside it
 * (±10^12), so that imports and give-backs, which are never refused, never meet it.
 */
export class ProductInventory1767000000000 implements MigrationInterface {
  name = 'ProductInventory1767000000000';

  async up(q: QueryRunner): Promise<void> {
    // Instant ALTERs that need the tables' exclusive lock: given up after 5 s rather than
    // queueing every order behind a long transaction (the next start tries again).
    await q.query(`SET LOCAL lock_timeout = '5s'`);
    await q.query(`
      ALTER TABLE products
        ADD COLUMN inventory_tracked boolean NOT NULL DEFAULT false,
        ADD COLUMN available bigint NOT NULL DEFAULT 0,
        ADD COLUMN version integer NOT NULL DEFAULT 1,
        ADD CONSTRAINT products_version_check CHECK (version >= 1) NOT VALID,
        ADD CONSTRAINT products_available_check
          CHECK (available BETWEEN -1000000000000000 AND 1000000000000000) NOT VALID`);
    await q.query(`
      ALTER TABLE order_items
        ADD COLUMN stock_held integer NOT NULL DEFAULT 0,
        ADD CONSTRAINT order_items_stock_held_check
          CHECK (stock_held BETWEEN 0 AND quantity) NOT VALID`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`SET LOCAL lock_timeout = '5s'`);
    await q.query(`DROP INDEX IF EXISTS products_updated_idx`);
    await q.query(`ALTER TABLE order_items DROP COLUMN stock_held`);
    await q.query(`
      ALTER TABLE products
        DROP COLUMN version,
        DROP COLUMN available,
        DROP COLUMN inventory_tracked`);
  }
}
