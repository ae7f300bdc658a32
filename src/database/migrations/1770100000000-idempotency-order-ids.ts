import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Stored responses per batch: each batch is its own short statement. */
const BATCH = 2_000;

/** The primary key of idempotency_keys, in its order. */
const KEY = 'tenant_id, app_id, method, path, key';

/**
 * An erasure redacts the stored idempotent responses that are a copy of the person's orders.
 * It found them by `response_body->>'id'` among every stored response of the tenant (no index:
 * 440 ms with 300,000 keys). Each stored response that is an Order now names it in `order_id`,
 * and an index on (tenant_id, order_id) finds them: the erasure's cost follows the person's
 * orders, not the tenant's keys.
 *
 * 1. `order_id`, nullable without a default: a change of the catalog only, under a brief lock
 *    given up after 5 s rather than queueing the tenant's writes behind a long transaction.
 * 2. The responses stored before it get their order's id, a batch of keys at a time in key
 *    order, each batch committing on its own, so keys stay writable throughout.
 * 3. The index, built CONCURRENTLY (no lock on writes), and only over the rows that name an
 *    order.
 *
 * Upgrade with every instance of the release before stopped first: one still running would
 * store an Order's response without its id (the erasure would then miss it until it expires,
 * IDEMPOTENCY_TTL_HOURS). Every step can run again after a failure half-way. `down` runs in
 * the migration transaction (TypeORM's revert always opens one).
 */
export class IdempotencyOrderIds1770100000000 implements MigrationInterface {
  name = 'IdempotencyOrderIds1770100000000';
  /** CREATE INDEX CONCURRENTLY cannot run inside a transaction (run-migrations.ts: 'each'). */
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`SET lock_timeout = '5s'`);
    await q.query(`ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS order_id bigint`);
    await q.query(`RESET lock_timeout`);

    await backfillInBatches(q);

    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS idempotency_keys_order_idx`);
    await q.query(
      `CREATE INDEX CONCURRENTLY idempotency_keys_order_idx
       ON idempotency_keys (tenant_id, order_id) WHERE order_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS idempotency_keys_order_idx`);
    await q.query(`ALTER TABLE idempotency_keys DROP COLUMN IF EXISTS order_id`);
  }
}

/**
 * Keys after `$1..$5` and up to `$6..$10` (none: to the end): one batch, a range of the
 * primary key.
 */
const IN_BATCH = `(${KEY}) > ($1::bigint, $2::bigint, $3::text, $4::text, $5::text)
  AND ($6::bigint IS NULL OR (${KEY}) <= ($6::bigint, $7::bigint, $8::text, $9::text, $10::text))`;

/**
 * A stored Order (the body of order create and cancel: it has a `shipping_address`, the
 * same test the erasure made) names its order; any other stored body names none.
 */
const BACKFILL = `UPDATE idempotency_keys SET order_id = (response_body->>'id')::bigint
  WHERE ${IN_BATCH} AND order_id IS NULL AND response_body ? 'shipping_address'
    AND jsonb_typeof(response_body->'id') = 'number'
    AND response_body->>'id' ~ '^[1-9][0-9]{0,17}$'`;

async function backfillInBatches(q: QueryRunner): Promise<void> {
  let after: unknown[] = ['0', '0', '', '', ''];
  for (;;) {
    const bounds: Array<Record<string, string>> = await q.query(
      `SELECT tenant_id::text, app_id::text, method, path, key FROM idempotency_keys
       WHERE (${KEY}) > ($1::bigint, $2::bigint, $3::text, $4::text, $5::text)
       ORDER BY ${KEY} OFFSET ${BATCH - 1} LIMIT 1`,
      after,
    );
    const upTo =
      bounds.length === 0
        ? [null, null, null, null, null]
        : [bounds[0].tenant_id, bounds[0].app_id, bounds[0].method, bounds[0].path, bounds[0].key];
    await q.query(BACKFILL, [...after, ...upTo]);
    if (bounds.length === 0) return;
    after = upTo;
  }
}
