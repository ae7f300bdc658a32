import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A ticket's token hash is unique within its tenant, not across tenants: every lookup names the
 * tenant, and a key without `tenant_id` could not be enforced once the schema is distributed by
 * tenant (test/citus-readiness.e2e-spec.ts). The new index is built CONCURRENTLY, outside any
 * transaction, before the old constraint goes; each step can run again after a failure
 * half-way.
 */
export class TicketTokenPerTenant1770000000000 implements MigrationInterface {
  name = 'TicketTokenPerTenant1770000000000';
  /** CREATE INDEX CONCURRENTLY cannot run inside a transaction (run-migrations.ts: 'each'). */
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS customer_tickets_tenant_token_key`);
    await q.query(
      `CREATE UNIQUE INDEX CONCURRENTLY customer_tickets_tenant_token_key
       ON customer_tickets (tenant_id, token_hash)`,
    );
    await q.query(
      `ALTER TABLE customer_tickets DROP CONSTRAINT IF EXISTS customer_tickets_token_hash_key`,
    );
  }

  /** Run inside a transaction by the migration runner: no CONCURRENTLY here. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE customer_tickets ADD CONSTRAINT customer_tickets_token_hash_key UNIQUE (token_hash)`,
    );
    await q.query(`DROP INDEX IF EXISTS customer_tickets_tenant_token_key`);
  }
}
