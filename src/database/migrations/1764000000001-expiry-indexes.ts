import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The maintenance job deletes expired tokens and sessions by expiry: index it. */
export class ExpiryIndexes1764000000001 implements MigrationInterface {
  name = 'ExpiryIndexes1764000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX app_tokens_expires_idx ON app_tokens (expires_at)`);
    await q.query(`CREATE INDEX customer_sessions_expires_idx ON customer_sessions (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX customer_sessions_expires_idx`);
    await q.query(`DROP INDEX app_tokens_expires_idx`);
  }
}
