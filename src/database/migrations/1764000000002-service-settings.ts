import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Facts a running server publishes for the other processes on its database, such as the
 * token issuer: the CLI signs private app tokens with the server's issuer, not its own
 * idea of PORT/PUBLIC_URL (which made tokens the server rejected).
 */
export class ServiceSettings1764000000002 implements MigrationInterface {
  name = 'ServiceSettings1764000000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE service_settings (
        name text PRIMARY KEY,
        value text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE service_settings`);
  }
}
