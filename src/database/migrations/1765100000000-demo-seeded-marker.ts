import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether demo data was ever seeded is now a service setting (`demo_seeded`, the first demo
 * tenant's id) instead of a search of every tenant's audit log: databases seeded before keep
 * counting as seeded, so their first start after the upgrade seeds nothing new.
 */
export class DemoSeededMarker1765100000000 implements MigrationInterface {
  name = 'DemoSeededMarker1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      INSERT INTO service_settings (name, value)
      SELECT 'demo_seeded', target_id FROM audit_log WHERE action = 'seed.demo'
      ORDER BY id LIMIT 1
      ON CONFLICT (name) DO NOTHING`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM service_settings WHERE name = 'demo_seeded'`);
  }
}
