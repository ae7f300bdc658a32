import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook attempts are claimed before they are sent (docs/BEHAVIOUR.md#webhooks, fairness):
 * `claimed_until` is the lease of the attempt in flight (a process that dies mid-send leaves
 * it to expire, then the attempt is made again). A due delivery whose endpoint or tenant has
 * no free slot waits in line from `waiting_since` without a job; a finished attempt wakes
 * the next in line, whose slot is held for it until `woken_until`.
 *
 * The columns are nullable without a default (no table rewrite). The indexes are built
 * CONCURRENTLY, outside a transaction, so deliveries are written on during the build; a
 * build that failed half-way leaves an invalid index, dropped and built again on the rerun.
 * `down` runs in the migration transaction (TypeORM's revert always opens one).
 */
const INDEXES = [
  // Slots in use per tenant and endpoint: only attempts in flight and woken deliveries.
  {
    name: 'webhook_deliveries_slots_idx',
    on: '(tenant_id, endpoint_id) WHERE claimed_until IS NOT NULL OR woken_until IS NOT NULL',
  },
  // The line per endpoint, in the order the deliveries fell due.
  {
    name: 'webhook_deliveries_line_idx',
    on: '(tenant_id, endpoint_id, next_attempt_at, id) WHERE waiting_since IS NOT NULL',
  },
];

export class WebhookDeliverySlots1765000000030 implements MigrationInterface {
  name = 'WebhookDeliverySlots1765000000030';
  /** CREATE INDEX CONCURRENTLY cannot run inside a transaction (run-migrations.ts: 'each'). */
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_deliveries
        ADD COLUMN IF NOT EXISTS claimed_until timestamptz,
        ADD COLUMN IF NOT EXISTS waiting_since timestamptz,
        ADD COLUMN IF NOT EXISTS woken_until timestamptz`);
    for (const { name, on } of INDEXES) {
      await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      await q.query(`CREATE INDEX CONCURRENTLY ${name} ON webhook_deliveries ${on}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { name } of INDEXES) await q.query(`DROP INDEX ${name}`);
    await q.query(`
      ALTER TABLE webhook_deliveries
        DROP COLUMN woken_until,
        DROP COLUMN waiting_since,
        DROP COLUMN claimed_until`);
  }
}
