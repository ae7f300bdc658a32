import type { DataSource } from 'typeorm';
import { MigrationExecutor } from 'typeorm/migration/MigrationExecutor.js';
import { endAuditExemption, exemptFromAudit } from './sql/statement-audit.js';

/** Any constant shared by every instance; only one of them migrates at a time. */
const MIGRATION_LOCK = 7_240_001;
const LOCK_RETRY_MS = 100;

/**
 * Applies pending migrations under a session advisory lock, so instances starting together
 * against one database take turns instead of racing; the later ones find nothing to do.
 * They run on the lock's own connection with no statement deadline: an index build on a large
 * table takes its time. Call it with a pool that has no client-side deadline either (the
 * server passes its background pool; the CLI and the worker have no deadlines at all); the
 * SET covers a server-side default set on the database or role.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  // DDL names tenant tables without a tenant: the audit leaves this connection alone meanwhile.
  const client = (await runner.connect()) as object;
  const exempted = exemptFromAudit(client);
  try {
    await runner.query('SET statement_timeout = 0');
    // Tried, not awaited in the database: an index built CONCURRENTLY by the instance that
    // migrates waits for every transaction with a snapshot to end, and a session blocked in
    // pg_advisory_lock() is one, so two instances starting together deadlocked.
    for (;;) {
      const [{ locked }]: Array<{ locked: boolean }> = await runner.query(
        'SELECT pg_try_advisory_lock($1) AS locked',
        [MIGRATION_LOCK],
      );
      if (locked) break;
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
    const executor = new MigrationExecutor(dataSource, runner);
    executor.transaction = 'each';
    const applied = await executor.executePendingMigrations();
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    // A session setting must not go back to the pool with the connection.
    await runner.query('RESET statement_timeout').catch(() => undefined);
    if (exempted) endAuditExemption(client);
    await runner.release();
  }
}
