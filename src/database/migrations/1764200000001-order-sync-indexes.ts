import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the sync-grade order list (CONTRACT 3.4): each filter and sort reads one index
 * range in order, whatever the tenant's size. Already there: `orders_list_idx` (created_at),
 * `orders_status_list_idx` (status, created_at), `orders_customer_list_idx` (customer,
 * created_at) and the unique (marketplace, external_order_id), which an `external_order_id`
 * filter reads with a skip scan over the few marketplaces (PostgreSQL 18). A customer's or
 * an email's orders are few, so their `updated_at` sorts sort them in memory.
 *
 * Every index slows inserts and status changes, so this adds only what a plan needs; the
 * email index replaces `orders_unlinked_email_idx` (verify-email's link reads it as well).
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
    await q.query(`
      CREATE INDEX orders_email_list_idx
      ON orders (tenant_id, lower(customer_email), created_at DESC, id DESC)`);
    await q.query(`DROP INDEX orders_unlinked_email_idx`);
    await q.query(`
      CREATE INDEX orders_marketplace_list_idx
      ON orders (tenant_id, marketplace, created_at DESC, id DESC) WHERE marketplace IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX orders_marketplace_list_idx`);
    await q.query(`
      CREATE INDEX orders_unlinked_email_idx ON orders (tenant_id, lower(customer_email))
      WHERE customer_id IS NULL`);
    await q.query(`DROP INDEX orders_email_list_idx`);
    await q.query(`DROP INDEX orders_status_updated_idx`);
    await q.query(`DROP INDEX orders_updated_list_idx`);
  }
}
