import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook attempts are claimed before they are sent (CONTRACT 3.9, section 8 fairness):
 * `claimed_until` is the lease of the attempt in flight (a process that dies mid-send leaves
 * it to expire, then the attempt is made again). A due delivery whose endpoint or tenant has
 * no free slot waits in line from `waiting_since` without a job; a finished attempt wakes
 * the next in line, whose slot is held for it until `woken_until`.
 */
export class WebhookDeliverySlots1765000000030 implements MigrationInterface {
  name = 'WebhookDeliverySlots1765000000030';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_deliveries
        ADD COLUMN claimed_until timestamptz,
        ADD COLUMN waiting_since timestamptz,
        ADD COLUMN woken_until timestamptz`);
    // Slots in use per tenant and endpoint: only attempts in flight and woken deliveries.
    await q.query(
      `CREATE INDEX webhook_deliveries_slots_idx ON webhook_deliveries (tenant_id, endpoint_id)
       WHERE claimed_until IS NOT NULL OR woken_until IS NOT NULL`,
    );
    // The line per endpoint, in the order the deliveries fell due.
    await q.query(
      `CREATE INDEX webhook_deliveries_line_idx
       ON webhook_deliveries (tenant_id, endpoint_id, next_attempt_at, id)
       WHERE waiting_since IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_line_idx`);
    await q.query(`DROP INDEX webhook_deliveries_slots_idx`);
    await q.query(`
      ALTER TABLE webhook_deliveries
        DROP COLUMN woken_until,
        DROP COLUMN waiting_since,
        DROP COLUMN claimed_until`);
  }
}
