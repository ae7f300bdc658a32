import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair import queueing (src/marketplace/import-lanes.repository.ts): each tenant's lane holds
 * the virtual time of its last queued import; the clock holds the virtual time of the last
 * import the workers took. A job's pg-boss priority is minus its virtual time.
 */
export class ImportFairQueue1770000000002 implements MigrationInterface {
  name = 'ImportFairQueue1770000000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE import_lanes (
        tenant_id bigint PRIMARY KEY REFERENCES tenants (id),
        last_tag bigint NOT NULL CHECK (last_tag > 0)
      )`);
    // One row: shared by every tenant, a reference table once distributed.
    await q.query(`
      CREATE TABLE import_clock (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        served_tag bigint NOT NULL DEFAULT 0 CHECK (served_tag >= 0)
      )`);
    await q.query(`INSERT INTO import_clock DEFAULT VALUES`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE import_clock`);
    await q.query(`DROP TABLE import_lanes`);
  }
}
