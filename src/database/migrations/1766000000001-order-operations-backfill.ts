import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Orders per batch: each batch is its own short transaction. */
const BATCH = 2_000;

/**
 * The data part of the order operations (migration 1766000000000), outside any long
 * transaction so that a large tenant's orders stay writable throughout:
 *
 * 1. Existing order lines get their ids, a batch of orders at a time in key order (each batch
 *    commits on its own; lines written meanwhile already take the sequence's default).
 * 2. Orders that reached `shipped`, `refunded` or `cancelled` before operations existed are
 *    given the state the API now derives from those statuses (docs/BEHAVIOUR.md): a shipped
 *    order (or a refunded one that had shipped) is fulfilled by one fulfillment of every line
 *    without tracking, a refunded one refunded in full by one refund without restock, a
 *    cancelled one cancelled for reason `other` at the time it was. Their `version` stays 1:
 *    nothing changed for the client that reads them.
 * 3. `order_items.id` becomes unique per tenant (built CONCURRENTLY) and NOT NULL (through a
 *    validated CHECK, so SET NOT NULL needs no scan under its exclusive lock), and the rules
 *    added NOT VALID are validated (a scan that blocks no reads or writes).
 * 4. The GIN indexes of the `tag` and `metadata[KEY]` list filters, built CONCURRENTLY.
 *
 * Upgrade with every instance of the release before stopped first: one still running would
 * move orders to shipped, refunded or cancelled without the state this migration gives them
 * (and without a version). Every step can run again after a failure half-way. `down` runs in the migration
 * transaction (TypeORM's revert always opens one), so its index drops block writes briefly.
 */
export class OrderOperationsBackfill1766000000001 implements MigrationInterface {
  name = 'OrderOperationsBackfill1766000000001';
  /** CREATE INDEX CONCURRENTLY cannot run inside a transaction (run-migrations.ts: 'each'). */
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await backfillInBatches(q);

    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS order_items_id_key`);
    await q.query(
      `CREATE UNIQUE INDEX CONCURRENTLY order_items_id_key ON order_items (tenant_id, id)`,
    );
    // The brief exclusive locks: given up after 5 s rather than queueing every order write
    // behind a long transaction (the migration then fails, and the next start retries).
    await q.query(`SET lock_timeout = '5s'`);
    await q.query(`ALTER TABLE order_items DROP CONSTRAINT IF EXISTS order_items_id_not_null`);
    await q.query(
      `ALTER TABLE order_items ADD CONSTRAINT order_items_id_not_null CHECK (id IS NOT NULL) NOT VALID`,
    );
    await q.query(`RESET lock_timeout`);
    await q.query(`ALTER TABLE order_items VALIDATE CONSTRAINT order_items_id_not_null`);
    await q.query(`SET lock_timeout = '5s'`);
    await q.query(`ALTER TABLE order_items ALTER COLUMN id SET NOT NULL`);
    await q.query(`ALTER TABLE order_items DROP CONSTRAINT order_items_id_not_null`);
    await q.query(`RESET lock_timeout`);

    for (const [table, constraint] of [
      ['orders', 'orders_version_check'],
      ['orders', 'orders_fulfillment_status_check'],
      ['orders', 'orders_refunded_check'],
      ['orders', 'orders_cancellation_check'],
      ['order_items', 'order_items_fulfilled_check'],
      ['order_items', 'order_items_refunded_check'],
    ]) {
      await q.query(`ALTER TABLE ${table} VALIDATE CONSTRAINT ${constraint}`);
    }

    for (const [name, expression] of [
      ['orders_tag_keys_idx', 'order_tag_keys(tenant_id, tag_keys)'],
      ['orders_metadata_keys_idx', 'order_metadata_keys(tenant_id, metadata)'],
    ]) {
      await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      await q.query(`CREATE INDEX CONCURRENTLY ${name} ON orders USING gin ((${expression}))`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS orders_metadata_keys_idx`);
    await q.query(`DROP INDEX IF EXISTS orders_tag_keys_idx`);
    await q.query(`ALTER TABLE order_items ALTER COLUMN id DROP NOT NULL`);
    await q.query(`DROP INDEX IF EXISTS order_items_id_key`);
  }
}

/**
 * Orders `(tenant_id, id)` after `$1, $2` and up to `$3, $4` (none: to the end): one batch. An
 * order `o` of the batch.
 */
const IN_BATCH = `(o.tenant_id, o.id) > ($1::bigint, $2::bigint)
  AND ($3::bigint IS NULL OR (o.tenant_id, o.id) <= ($3::bigint, $4::bigint))`;

/** Every line of order `o` in full, as a fulfillment's or refund's `items`. */
const ALL_LINES = `(SELECT coalesce(json_agg(json_build_object('item_id', i.id, 'quantity', i.quantity)
    ORDER BY i.line_no), '[]') FROM order_items i
    WHERE i.tenant_id = o.tenant_id AND i.order_id = o.id)::jsonb`;

/** When order `o` last moved to `status` (its history), else its last change. */
const movedAt = (status: string) => `coalesce((SELECT max(c.changed_at) FROM order_status_changes c
    WHERE c.tenant_id = o.tenant_id AND c.order_id = o.id AND c.to_status = '${status}'), o.updated_at)`;

/**
 * Per batch, in this order: the lines get their ids, then each legacy state. Each statement
 * selects only what is not done yet, so a repeat after a failure resumes where it stopped.
 */
const BATCH_STATEMENTS = [
  // Ids for the lines written before the sequence existed.
  `UPDATE order_items i SET id = nextval('order_items_id_seq') FROM orders o
   WHERE ${IN_BATCH} AND i.tenant_id = o.tenant_id AND i.order_id = o.id AND i.id IS NULL`,
  // Shipped, or refunded after shipping: one fulfillment of every line.
  `WITH o AS (
     SELECT o.tenant_id, o.id, ${movedAt('shipped')} AS at, ${ALL_LINES} AS items FROM orders o
     WHERE ${IN_BATCH} AND o.fulfillment_status = 'unfulfilled' AND (o.status = 'shipped'
       OR (o.status = 'refunded' AND EXISTS (SELECT 1 FROM order_status_changes c
           WHERE c.tenant_id = o.tenant_id AND c.order_id = o.id AND c.to_status = 'shipped')))
     FOR UPDATE),
   lines AS (
     UPDATE order_items i SET fulfilled_quantity = i.quantity FROM o
     WHERE i.tenant_id = o.tenant_id AND i.order_id = o.id),
   recorded AS (
     INSERT INTO fulfillments (tenant_id, order_id, items, tracking, created_at, updated_at)
     SELECT tenant_id, id, items, NULL, at, at FROM o)
   UPDATE orders x SET fulfillment_status = 'fulfilled' FROM o
   WHERE x.tenant_id = o.tenant_id AND x.id = o.id`,
  // Refunded: one refund of the whole total and every line, without restock.
  `WITH o AS (
     SELECT o.tenant_id, o.id, o.total_minor, o.currency, ${movedAt('refunded')} AS at,
       ${ALL_LINES} AS items FROM orders o
     WHERE ${IN_BATCH} AND o.status = 'refunded' AND o.refunded_minor = 0 AND o.total_minor > 0
     FOR UPDATE),
   lines AS (
     UPDATE order_items i SET refunded_quantity = i.quantity FROM o
     WHERE i.tenant_id = o.tenant_id AND i.order_id = o.id),
   recorded AS (
     INSERT INTO refunds (tenant_id, order_id, amount_minor, currency, items, reason, restocked, created_at)
     SELECT tenant_id, id, total_minor, currency, items, NULL, false, at FROM o)
   UPDATE orders x SET refunded_minor = o.total_minor FROM o
   WHERE x.tenant_id = o.tenant_id AND x.id = o.id`,
  // Cancelled: reason `other`, at the time of the change.
  `UPDATE orders o SET cancel_reason = 'other', cancelled_at = ${movedAt('cancelled')}
   WHERE ${IN_BATCH} AND o.status = 'cancelled' AND o.cancelled_at IS NULL`,
];

/**
 * The data part, a batch of orders at a time in key order: each statement commits on its own
 * and reads only its batch (a keyset range of the primary key), so the work is linear in the
 * table and no transaction is long.
 */
async function backfillInBatches(q: QueryRunner): Promise<void> {
  let after: [string, string] = ['0', '0'];
  for (;;) {
    const bounds: Array<{ tenant_id: string; id: string }> = await q.query(
      `SELECT tenant_id::text, id::text FROM orders WHERE (tenant_id, id) > ($1::bigint, $2::bigint)
       ORDER BY tenant_id, id OFFSET ${BATCH - 1} LIMIT 1`,
      after,
    );
    const upTo = bounds.length === 0 ? [null, null] : [bounds[0].tenant_id, bounds[0].id];
    for (const statement of BATCH_STATEMENTS) await q.query(statement, [...after, ...upTo]);
    if (bounds.length === 0) return;
    after = [bounds[0].tenant_id, bounds[0].id];
  }
}
