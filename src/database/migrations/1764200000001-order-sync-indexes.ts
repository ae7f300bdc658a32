import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the sync-grade order list (docs/BEHAVIOUR.md#reading-orders). A filter whose share of
 * a tenant's orders can be anything from none to all (status, source, marketplace) gets an index
 * per sort timestamp, so a page reads one ordered range however the matching orders spread over
 * time: a filtered scan of the plain index would read the whole tenant when they are rare, or all
 * at one end. Already there: `orders_list_idx`, `orders_status_list_idx` (created_at),
 * `orders_customer_list_idx`, and the unique (marketplace, external_order_id), which an
 * `external_order_id` filter reads with a skip scan over the few marketplaces (PostgreSQL 18).
 * One customer's or one email's orders are few: their updated_at sorts sort them in memory.
 * Several statuses are one arm per status, merged in order (order-list-query.ts).
 *
 * Every index costs each insert and each status change (a status change is never a HOT
 * update: status is indexed), so this adds only what a plan needs; the email index replaces
 * `orders_unlinked_email_idx`, whose lookup (verify-email's link) it serves as well, and the
 * marketplace ones are partial (marketplace orders only).
 */
export class OrderSyncIndexes1764200000001 implements MigrationInterface {
  name = 'OrderSyncIndexes1764200000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX orders_updated_list_idx ON orders (tenant_id, updated_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX orders_status_updated_idx ON orders (tenant_id, status, updated_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX orders_source_list_idx ON orders (tenant_id, source, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX orders_source_updated_idx ON orders (tenant_id, source, updated_at DESC, id DESC)`,
    );
    await q.query(`
      CREATE INDEX orders_marketplace_list_idx
      ON orders (tenant_id, marketplace, created_at DESC, id DESC) WHERE marketplace IS NOT NULL`);
    await q.query(`
      CREATE INDEX orders_marketplace_updated_idx
      ON orders (tenant_id, marketplace, updated_at DESC, id DESC) WHERE marketplace IS NOT NULL`);
    await q.query(`
      CREATE INDEX orders_email_list_idx
      ON orders (tenant_id, lower(customer_email), created_at DESC, id DESC)`);
    await q.query(`DROP INDEX orders_unlinked_email_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX orders_unlinked_email_idx ON orders (tenant_id, lower(customer_email))
      WHERE customer_id IS NULL`);
    for (const index of [
      'orders_email_list_idx',
      'orders_marketplace_updated_idx',
      'orders_marketplace_list_idx',
      'orders_source_updated_idx',
      'orders_source_list_idx',
      'orders_status_updated_idx',
      'orders_updated_list_idx',
    ]) {
      await q.query(`DROP INDEX ${index}`);
    }
  }
}
