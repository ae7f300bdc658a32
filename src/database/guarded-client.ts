import pg from 'pg';
import { auditFailure, exemptFromAudit } from './sql/statement-audit.js';

/** node-postgres' error when a query outlives the client's `query_timeout`. */
const READ_TIMEOUT = 'Query read timeout';

/**
 * A pg client made to survive a database that fails, for every pool of the service:
 *
 * - It always has an `'error'` listener. node-postgres emits `'error'` on a client whose
 *   server ended the connection (a restart, a failover); pg-pool listens only while the
 *   client is idle, and TypeORM only while a query runner holds it and not after it released
 *   it for that very error, so in between an emitted error had no listener and ended the
 *   process. The query that was running learns of the failure through its own callback.
 * - A query past the pool's `query_timeout` (a client-side deadline, for a server that went
 *   silent without closing: a partition, a stopped host, where its own statement_timeout
 *   cannot fire) drops the connection. node-postgres only stops waiting: the connection
 *   would go back to the pool still busy, and every later query on it would wait too.
 *   Dropped, the pool replaces it.
 * - Every statement passes the statement audit first (sql/statement-audit.ts): one that names
 *   a tenant table without going through the tenant path or a named cross-tenant path fails
 *   before it is sent, in production as in tests.
 */
export class GuardedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', ignoreConnectionError);
    const query = this.query.bind(this) as (...args: unknown[]) => unknown;
    this.query = ((...args: unknown[]) => {
      const last = args.length - 1;
      const callback = args[last];
      const refused = auditFailure(this, args[0]);
      if (refused) {
        if (typeof callback !== 'function') return Promise.reject(refused);
        process.nextTick(() => (callback as (e: unknown) => void)(refused));
        return undefined;
      }
      if (typeof callback === 'function') {
        args[last] = (error: unknown, result: unknown) => {
          this.dropIfTimedOut(error);
          (callback as (e: unknown, r: unknown) => void)(error, result);
        };
        return query(...args);
      }
      const result = query(...args);
      if (result instanceof Promise) result.catch((error: unknown) => this.dropIfTimedOut(error));
      return result;
    }) as typeof this.query;
  }

  private dropIfTimedOut(error: unknown): void {
    if (!(error instanceof Error) || error.message !== READ_TIMEOUT) return;
    (
      this as unknown as { connection: { stream: { destroy(): void } } }
    ).connection.stream.destroy();
  }
}

/**
 * A guarded client outside the statement audit: for schema changes only (the TypeORM CLI's
 * `migration:run` and `migration:revert`, whose DDL names tenant tables without a tenant).
 * The service's own pools never use it; `runMigrations` exempts its one connection instead.
 */
export class SchemaClient extends GuardedClient {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    exemptFromAudit(this);
  }
}

function ignoreConnectionError(): void {
  // Deliberately empty: see the class comment.
}
