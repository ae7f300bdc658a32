import pg from 'pg';

/**
 * A pg client that always has an `'error'` listener. node-postgres emits `'error'` on a
 * client whose server ended the connection (a restart, a failover); pg-pool listens only
 * while the client is idle, and TypeORM only while a query runner holds it and not after it
 * released it for that very error, so in between an emitted error had no listener and ended
 * the process. The query that was running learns of the failure through its own callback,
 * and the pool drops the broken client; here it only has to be heard.
 */
export class GuardedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', ignoreConnectionError);
  }
}

function ignoreConnectionError(): void {
  // Deliberately empty: see the class comment.
}
