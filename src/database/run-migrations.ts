import type { DataSource } from 'typeorm';

/** Any constant shared by every instance; only one of them migrates at a time. */
const MIGRATION_LOCK = 7_240_001;

/**
 * Applies pending migrations under a session advisory lock, so instances starting together
 * against one database take turns instead of racing; the later ones find nothing to do.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}
