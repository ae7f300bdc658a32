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
  }
}

type QueryFunction = (
  this: pg.Client,
  config: unknown,
  values?: unknown,
  callback?: unknown,
) => unknown;
type Callback = (error: unknown, result?: unknown) => void;

const clientQuery = Reflect.get(pg.Client.prototype, 'query') as QueryFunction;

/**
 * pg's `query` behind the audit and the read-timeout drop, for every form pg takes (text or
 * config or query object; values; a callback last, or a promise). On the prototype, with
 * pg's own parameters: no closure per connection, no argument array per statement.
 */
function guardedQuery(this: pg.Client, config: unknown, values?: unknown, callback?: unknown) {
  const done =
    typeof callback === 'function'
      ? (callback as Callback)
      : typeof values === 'function'
        ? (values as Callback)
        : undefined;
  const refused = auditFailure(this, config);
  if (refused) {
    if (done === undefined) return Promise.reject(refused);
    process.nextTick(() => done(refused));
    return undefined;
  }
  if (done !== undefined) {
    const watched: Callback = (error, result) => {
      dropIfTimedOut(this, error);
      done(error, result);
    };
    return done === callback
      ? clientQuery.call(this, config, values, watched)
      : clientQuery.call(this, config, watched);
  }
  const result = clientQuery.call(this, config, values);
  if (result instanceof Promise) result.catch((error: unknown) => dropIfTimedOut(this, error));
  return result;
}
(GuardedClient.prototype as unknown as { query: QueryFunction }).query = guardedQuery;

function dropIfTimedOut(client: pg.Client, error: unknown): void {
  if (!(error instanceof Error) || error.message !== READ_TIMEOUT) return;
  (
    client as unknown as { connection: { stream: { destroy(): void } } }
  ).connection.stream.destroy();
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
