import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A replay must repeat headers such as Location, not only the status and body. */
export class IdempotencyResponseHeaders1763900000000 implements MigrationInterface {
  name = 'IdempotencyResponseHeaders1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE idempotency_keys ADD COLUMN response_headers jsonb NOT NULL DEFAULT '{}'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_keys DROP COLUMN response_headers`);
  }
}
