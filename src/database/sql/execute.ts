import { createHash } from 'node:crypto';
import type pg from 'pg';
import { type EntityManager, QueryRunnerAlreadyReleasedError } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';
import { PreparedQuery } from './prepared-query.js';

/** What a statement answers: its rows, and how many rows it wrote (UPDATE, DELETE, INSERT). */
export interface StatementResult<T> {
  rows: T[];
  rowCount: number;
}

/** Statement names by text: the same text is always the same prepared statement. */
const names = new Map<string, string>();

function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `p_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Runs one statement on `m`'s connection: its transaction's, else one of the pool's. Straight
 * to node-postgres (TypeORM's `query` answers `[rows, count]` for UPDATE and DELETE and rows
 * otherwise, and costs a wrapper per call). `prepared` makes it a named prepared statement,
 * parsed and planned once per connection: for fixed texts only, since every distinct text
 * stays prepared on every pooled connection for its lifetime.
 */
export async function execute<T>(
  m: EntityManager,
  text: string,
  values: readonly unknown[],
  prepared = false,
): Promise<StatementResult<T>> {
  const runner = m.queryRunner;
  let result: pg.QueryResult;
  if (runner) {
    // A finished transaction's manager must fail, as TypeORM's own query does, never run
    // the statement outside any transaction.
    if (runner.isReleased) throw new QueryRunnerAlreadyReleasedError();
    const client = (await runner.connect()) as pg.PoolClient;
    result = prepared
      ? await runPrepared(client, text, values)
      : await client.query(text, values as unknown[]);
  } else {
    const pool = (m.connection.driver as PostgresDriver).master as pg.Pool;
    result = prepared
      ? await runPrepared(pool, text, values)
      : await pool.query(text, values as unknown[]);
  }
  return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
}

/**
 * A named statement through PreparedQuery (rows described once per connection). A query
 * object is answered through its callback, on a pool as on a client.
 */
function runPrepared(
  on: pg.Pool | pg.PoolClient,
  text: string,
  values: readonly unknown[],
): Promise<pg.QueryResult> {
  return new Promise<pg.QueryResult>((resolve, reject) => {
    const query = new PreparedQuery(nameOf(text), text, values as unknown[]);
    const done = (error: Error | undefined, result: pg.QueryResult) =>
      error ? reject(error) : resolve(result);
    (on as unknown as { query(q: PreparedQuery, cb: typeof done): void }).query(query, done);
  }).catch((error: unknown) => {
    // As pg's own promise does: a stack that leads back to the caller, not to the socket read.
    if (error instanceof Error) Error.captureStackTrace(error);
    throw error;
  });
}
