import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The last keys without `tenant_id` (test/citus-readiness.e2e-spec.ts):
 * - `apps.client_id` was unique across tenants, because the token endpoint finds an app by
 *   client_id alone. That global uniqueness moves to `app_clients`, a directory of client_id →
 *   tenant (a reference table once distributed); `apps` keeps (tenant_id, client_id) unique.
 * - `app_tokens`, `customer_sessions` and `audit_log` get (tenant_id, …) primary keys. The
 *   CLI still revokes a token by jti alone, so `app_tokens` keeps a plain index on jti.
 * - `audit_log.tenant_id` becomes NOT NULL: every audit row has been written on the tenant
 *   path; a database with rows of no tenant stops the migration with a message.
 *
 * Indexes are built CONCURRENTLY outside a transaction and become primary keys with
 * `USING INDEX`, so writers are held only for the swap. Apps made by processes of the
 * previous release while this runs (a rolling deploy) are entered into the directory by
 * maintenance (AppClientsRepository.backfill) within its 5 minutes. NOT NULL is proven by a validated
 * CHECK first, so SET NOT NULL does not scan under an exclusive lock. Each step can run again
 * after a failure half-way.
 */
export class TenantKeys1770000000001 implements MigrationInterface {
  name = 'TenantKeys1770000000001';
  /** CREATE INDEX CONCURRENTLY cannot run inside a transaction (run-migrations.ts: 'each'). */
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    // An exclusive lock queued behind a long transaction would stall every token check and
    // login behind it: past 10 s the step fails instead, and the migration can run again.
    await q.query(`SET lock_timeout = '10s'`);
    try {
      await this.clientDirectory(q);
      await this.auditTenantNotNull(q);
      await this.swapPrimaryKey(q, 'app_tokens', 'tenant_id, jti');
      await q.query(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS app_tokens_jti_idx ON app_tokens (jti)`,
      );
      await this.swapPrimaryKey(q, 'customer_sessions', 'tenant_id, id');
      await this.swapPrimaryKey(q, 'audit_log', 'tenant_id, id');
    } finally {
      await q.query(`RESET lock_timeout`);
    }
  }

  /** Run inside a transaction by the migration runner: no CONCURRENTLY here. */
  async down(q: QueryRunner): Promise<void> {
    for (const [table, key] of [
      ['audit_log', 'id'],
      ['customer_sessions', 'id'],
      ['app_tokens', 'jti'],
    ]) {
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey, ADD PRIMARY KEY (${key})`);
    }
    await q.query(`DROP INDEX app_tokens_jti_idx`);
    await q.query(`ALTER TABLE audit_log ALTER COLUMN tenant_id DROP NOT NULL`);
    await q.query(`ALTER TABLE apps ADD CONSTRAINT apps_client_id_key UNIQUE (client_id)`);
    await q.query(`DROP INDEX apps_tenant_client_id_key`);
    await q.query(`DROP TABLE app_clients`);
  }

  private async clientDirectory(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS app_clients (
        client_id text PRIMARY KEY,
        tenant_id bigint NOT NULL REFERENCES tenants (id)
      )`);
    await q.query(
      `INSERT INTO app_clients (client_id, tenant_id) SELECT client_id, tenant_id FROM apps
       ON CONFLICT (client_id) DO NOTHING`,
    );
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS apps_tenant_client_id_key`);
    await q.query(
      `CREATE UNIQUE INDEX CONCURRENTLY apps_tenant_client_id_key ON apps (tenant_id, client_id)`,
    );
    await q.query(`ALTER TABLE apps DROP CONSTRAINT IF EXISTS apps_client_id_key`);
  }

  private async auditTenantNotNull(q: QueryRunner): Promise<void> {
    const [{ orphans }] = (await q.query(
      `SELECT count(*)::int AS orphans FROM audit_log WHERE tenant_id IS NULL`,
    )) as Array<{ orphans: number }>;
    if (orphans > 0) {
      throw new Error(
        `audit_log has ${orphans} rows of no tenant; give them a tenant_id or move them out ` +
          'before this migration (every audit row belongs to a tenant from now on)',
      );
    }
    await q.query(
      `ALTER TABLE audit_log DROP CONSTRAINT IF EXISTS audit_log_tenant_id_not_null,
       ADD CONSTRAINT audit_log_tenant_id_not_null CHECK (tenant_id IS NOT NULL) NOT VALID`,
    );
    await q.query(`ALTER TABLE audit_log VALIDATE CONSTRAINT audit_log_tenant_id_not_null`);
    await q.query(`ALTER TABLE audit_log ALTER COLUMN tenant_id SET NOT NULL`);
    await q.query(`ALTER TABLE audit_log DROP CONSTRAINT audit_log_tenant_id_not_null`);
  }

  /** `table`'s primary key becomes (`columns`), its unique index built without blocking writes. */
  private async swapPrimaryKey(q: QueryRunner, table: string, columns: string): Promise<void> {
    const [{ current }] = (await q.query(
      `SELECT pg_get_constraintdef(oid) AS current FROM pg_constraint
       WHERE conrelid = $1::regclass AND contype = 'p'`,
      [table],
    )) as Array<{ current: string }>;
    if (current === `PRIMARY KEY (${columns})`) return;
    const index = `${table}_tenant_pkey`;
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index}`);
    await q.query(`CREATE UNIQUE INDEX CONCURRENTLY ${index} ON ${table} (${columns})`);
    // The index takes the constraint's usual name, so the next step finds it as before.
    await q.query(
      `ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey,
       ADD CONSTRAINT ${table}_pkey PRIMARY KEY USING INDEX ${index}`,
    );
  }
}
