import type { DataSourceOptions } from 'typeorm';
import { GuardedClient, SchemaClient } from './guarded-client.js';
import { MIGRATIONS } from './migrations/index.js';

export interface PoolOptions {
  /** Connections at most. */
  size: number;
  /** Server-side deadline of every statement (0: none, as for migrations and the CLI). */
  statementTimeoutMs?: number;
  /** How long a query waits for a free connection before it fails (503). */
  acquireTimeoutMs?: number;
  /** Names the pool in pg_stat_activity. */
  applicationName?: string;
  /**
   * False for schema work only (the TypeORM CLI, the migration spec): its statements are not
   * audited. Every pool of the service is audited.
   */
  audited?: boolean;
}

/**
 * The client-side deadline of a request statement: the server's own (statement_timeout) plus
 * this, so that only a server that stopped answering altogether reaches it (guarded-client.ts).
 */
const CLIENT_DEADLINE_GRACE_MS = 2_000;

/**
 * A transaction left open and idle (a bug, a client gone mid-unit) holds its locks and its
 * connection; PostgreSQL ends it after this long.
 */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

export function dataSourceOptions(url: string, pool: number | PoolOptions = 10): DataSourceOptions {
  const {
    size,
    statementTimeoutMs,
    acquireTimeoutMs,
    applicationName,
    audited = true,
  } = typeof pool === 'number' ? { size: pool } : pool;
  return {
    type: 'postgres',
    url,
    // No entities: repositories write their SQL (src/database/sql/); TypeORM runs the pools,
    // the units of work and the migrations.
    entities: [],
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    // Each migration in its own transaction, or none when it says so (an index built
    // CONCURRENTLY): also what `npm run typeorm -- migration:run` does by default then.
    migrationsTransactionMode: 'each',
    // Ids and minor-unit amounts are bigint; they stay far below 2^53.
    parseInt8: true,
    logging: false,
    extra: {
      max: size,
      application_name: applicationName ?? 'storefront',
      connectionTimeoutMillis: acquireTimeoutMs ?? 5_000,
      // Sent at connection start-up: no statement of this pool runs past it, at no cost per query.
      ...(statementTimeoutMs
        ? {
            statement_timeout: statementTimeoutMs,
            query_timeout: statementTimeoutMs + CLIENT_DEADLINE_GRACE_MS,
          }
        : {}),
      // Idle connections to a vanished server are found by TCP instead of by a request.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
      Client: audited ? GuardedClient : SchemaClient,
    },
  };
}
