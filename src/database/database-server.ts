import type { AppConfig } from '../config/app-config.js';
import type { DatabaseServer } from './embedded-postgres-server.js';

export type { DatabaseServer };

/** DATABASE_URL when set; otherwise the embedded server under DATA_DIR. */
export async function openDatabaseServer(
  config: AppConfig,
  log: (message: string) => void,
): Promise<DatabaseServer> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, stop: async () => {} };
  // Imported only when used: a production install has no embedded PostgreSQL.
  const { openEmbeddedPostgres } = await import('./embedded-postgres-server.js');
  return openEmbeddedPostgres(config.DATA_DIR, log);
}
