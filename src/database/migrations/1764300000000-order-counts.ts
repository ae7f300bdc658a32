import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Exact order counts without `count(*)` (`meta.total`, docs/BEHAVIOUR.md#reading-orders), per
 * (tenant, customer, status), `customer_id` 0 standing for the whole tenant.
 *
 * Writers only append to `order_count_deltas`, in the transaction of the change (by trigger
 * since 1764300000001): an append takes no row lock, so a long transaction that changed an
 * order never holds up the tenant's other writes, as one hot counter row per tenant would.
 * A compactor folds the deltas into `order_counts` every second (one transaction: delete
 * them, add their sums). A total is the base rows plus the deltas, read in one snapshot, so it
 * is exact whether or not the compactor has run.
 */
export class OrderCounts1764300000000 implements MigrationInterface {
  name = 'OrderCounts1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE order_counts (
        tenant_id bigint NOT NULL REFERENCES tenants (id),
        customer_id bigint NOT NULL,
        status text NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (tenant_id, customer_id, status)
      )`);
    await q.query(`
      CREATE TABLE order_count_deltas (
        tenant_id bigint NOT NULL,
        customer_id bigint NOT NULL,
        status text NOT NULL,
        delta integer NOT NULL
      )`);
    await q.query(`
      CREATE INDEX order_count_deltas_key_idx ON order_count_deltas (tenant_id, customer_id, status)`);
    await q.query(`
      INSERT INTO order_counts (tenant_id, customer_id, status, count)
      SELECT tenant_id, 0, status, count(*) FROM orders GROUP BY tenant_id, status
      UNION ALL
      SELECT tenant_id, customer_id, status, count(*) FROM orders
      WHERE customer_id IS NOT NULL GROUP BY tenant_id, customer_id, status`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE order_count_deltas`);
    await q.query(`DROP TABLE order_counts`);
  }
}
