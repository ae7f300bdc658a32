import type { AppConfig } from '../config/app-config.js';
import type { DatabaseServer } from './embedded-postgres-server.js';
import { waitForDatabase } from './wait-for-database.js';

export type { DatabaseServer };

export interface DatabaseServerLog {
  info(message: string): void;
  warn(message: string): void;
}

/**
 * DATABASE_URL when set, once it answers (a configuration error fails at once with its
 * cause: wait-for-database.ts); otherwise the embedded server under DATA_DIR.
 */
export async function openDatabaseServer(
  config: AppConfig,
  log: DatabaseServerLog,
): Promise<DatabaseServer> {
  if (config.DATABASE_URL) {
    await waitForDatabase(config.DATABASE_URL, { onRetry: (m) => log.warn(m) });
    return { url: config.DATABASE_URL, stop: async () => {} };
  }
  // Imported only when used: a production install has no embedded PostgreSQL.
  const { openEmbeddedPostgres } = await import('./embedded-postgres-server.js');
  return openEmbeddedPostgres(config.DATA_DIR, (m) => log.info(m));
}
