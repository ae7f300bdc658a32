import type PgBoss from 'pg-boss';
import plans from 'pg-boss/src/plans.js';
import pg from 'pg';
import { GuardedClient } from '../database/guarded-client.js';

const SCHEMA = 'pgboss';

/**
 * pg-boss's connection to the database: a pool of its own (the queue never waits behind
 * request traffic), whose clients always have an error listener, and whose errors are
 * reported instead of thrown at nobody.
 *
 * pg-boss 10 settles a job after its handler with `complete()` or `fail()` without awaiting
 * them (pg-boss 11 awaits them, but neither 11 nor 12 can take over a pg-boss 10 schema in
 * place: README, "Queue"): while the database is down they reject
 * with no one to hear, and Node ends the process. For those two statements alone a failure
 * is reported and answered as "no job changed"; the job then stays active until its expiry,
 * and pg-boss's own maintenance retries it, so nothing is lost, at worst done again (every
 * handler here is idempotent). Every other statement fails as usual.
 */
export class BossDatabase implements PgBoss.Db {
  private readonly pool: pg.Pool;
  private readonly settling: ReadonlySet<string> = new Set([
    plans.completeJobs(SCHEMA),
    plans.failJobsById(SCHEMA),
  ]);

  constructor(
    connectionString: string,
    max: number,
    private readonly onError: (error: unknown, what: string) => void,
  ) {
    this.pool = new pg.Pool({
      connectionString,
      max,
      application_name: 'storefront-queue',
      connectionTimeoutMillis: 10_000,
      Client: GuardedClient,
    });
    this.pool.on('error', (error) => onError(error, 'idle queue connection lost'));
  }

  readonly schema = SCHEMA;

  async executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }> {
    try {
      return await this.pool.query(text, values);
    } catch (error) {
      if (!this.settling.has(text)) throw error;
      this.onError(error, 'job outcome not recorded; the job is retried after its expiry');
      return { rows: [{ count: '0' }] };
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
