import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A random id of this database, written once on the primary and streamed to its replicas:
 * a server in DATABASE_READ_URLS serves reads only when it holds the same id, so a standby of
 * another database (staging, an old cluster) is never taken for one of ours.
 */
export class DatabaseId1770000000003 implements MigrationInterface {
  name = 'DatabaseId1770000000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `INSERT INTO service_settings (name, value) VALUES ('database_id', gen_random_uuid()::text)
       ON CONFLICT (name) DO NOTHING`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM service_settings WHERE name = 'database_id'`);
  }
}
