import type { MigrationInterface, QueryRunner } from 'typeorm';

/** (tenant, customer, status, ±1) rows of a transition table: the tenant's and the customer's counter. */
const countRows = (table: string, sign: 1 | -1) => `
  SELECT r.tenant_id, k.customer_id, r.status, ${sign} AS delta
  FROM ${table} AS r
  CROSS JOIN LATERAL (VALUES (0::bigint), (r.customer_id)) AS k(customer_id)
  WHERE k.customer_id IS NOT NULL`;

const appendDeltas = (rows: string) => `
  INSERT INTO order_count_deltas (tenant_id, customer_id, status, delta)
  SELECT d.tenant_id, d.customer_id, d.status, sum(d.delta) FROM (${rows}) AS d
  GROUP BY d.tenant_id, d.customer_id, d.status HAVING sum(d.delta) <> 0`;

/**
 * The order counters (migration 1764300000000) moved by the database itself: statement-level
 * triggers with transition tables append the deltas of every INSERT, UPDATE and DELETE of
 * orders, in the statement's transaction, whoever writes (the service, an instance of an older
 * release during a rolling deploy, a fix by hand). An update that moves neither status nor
 * customer appends nothing (its deltas sum to zero).
 *
 * The counters are rebuilt from the orders under a lock that waits for running writers and
 * holds new ones until commit, so they start exact whatever was written before.
 */
export class OrderCountTriggers1764300000001 implements MigrationInterface {
  name = 'OrderCountTriggers1764300000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`LOCK TABLE orders IN SHARE ROW EXCLUSIVE MODE`);
    await q.query(`
      CREATE FUNCTION order_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${appendDeltas(countRows('inserted', 1))}; RETURN NULL; END $$`);
    await q.query(`
      CREATE FUNCTION order_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${appendDeltas(`${countRows('updated', 1)} UNION ALL ${countRows('previous', -1)}`)};
      RETURN NULL; END $$`);
    await q.query(`
      CREATE FUNCTION order_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${appendDeltas(countRows('deleted', -1))}; RETURN NULL; END $$`);
    await q.query(`
      CREATE TRIGGER orders_count_inserted AFTER INSERT ON orders
      REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION order_counts_inserted()`);
    await q.query(`
      CREATE TRIGGER orders_count_updated AFTER UPDATE ON orders
      REFERENCING OLD TABLE AS previous NEW TABLE AS updated
      FOR EACH STATEMENT EXECUTE FUNCTION order_counts_updated()`);
    await q.query(`
      CREATE TRIGGER orders_count_deleted AFTER DELETE ON orders
      REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION order_counts_deleted()`);
    await q.query(`DELETE FROM order_count_deltas`);
    await q.query(`DELETE FROM order_counts`);
    await q.query(`
      INSERT INTO order_counts (tenant_id, customer_id, status, count)
      SELECT tenant_id, 0, status, count(*) FROM orders GROUP BY tenant_id, status
      UNION ALL
      SELECT tenant_id, customer_id, status, count(*) FROM orders
      WHERE customer_id IS NOT NULL GROUP BY tenant_id, customer_id, status`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER orders_count_deleted ON orders`);
    await q.query(`DROP TRIGGER orders_count_updated ON orders`);
    await q.query(`DROP TRIGGER orders_count_inserted ON orders`);
    await q.query(`DROP FUNCTION order_counts_deleted()`);
    await q.query(`DROP FUNCTION order_counts_updated()`);
    await q.query(`DROP FUNCTION order_counts_inserted()`);
  }
}
