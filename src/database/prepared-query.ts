import { createHash } from 'node:crypto';
import type pg from 'pg';
import { type EntityManager, QueryRunnerAlreadyReleasedError } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';

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
 * Runs `text` as a named prepared statement on `m`'s connection (its transaction's, else one
 * of the pool's): PostgreSQL parses and plans it once per connection instead of on every
 * request. For the hot paths' fixed statements only: every distinct text stays prepared on
 * every pooled connection for its lifetime, so texts built from open-ended input must not
 * come here.
 */
export async function preparedQuery<T>(
  m: EntityManager,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const query = { name: nameOf(text), text, values };
  const runner = m.queryRunner;
  if (runner) {
    // A finished transaction's manager must fail, as TypeORM's own query does, never run
    // the statement outside any transaction.
    if (runner.isReleased) throw new QueryRunnerAlreadyReleasedError();
    const client = (await runner.connect()) as pg.PoolClient;
    return (await client.query(query)).rows as T[];
  }
  const pool = (m.connection.driver as PostgresDriver).master as pg.Pool;
  return (await pool.query(query)).rows as T[];
}
