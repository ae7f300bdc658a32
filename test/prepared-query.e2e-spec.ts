import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreparedQuery } from '../src/database/sql/prepared-query.js';
import { createTestDatabase } from './support/test-database.js';

const TEXT = `SELECT $1::bigint AS id, $2::text AS name, now() AS at, '{"a":[1,2]}'::json AS doc,
  NULL::int AS nothing FROM generate_series(1, $3::int)`;

function run(client: pg.Client, name: string, text: string, values: unknown[]) {
  return new Promise<pg.QueryResult>((resolve, reject) => {
    const query = new PreparedQuery(name, text, values);
    (
      client as unknown as { query(q: PreparedQuery, cb: (e?: Error, r?: unknown) => void): void }
    ).query(query, (error, result) => (error ? reject(error) : resolve(result as pg.QueryResult)));
  });
}

/** Counts the RowDescription messages the server sends on `client`'s connection. */
function describedRows(client: pg.Client): () => number {
  let count = 0;
  (client as unknown as { connection: pg.Connection }).connection.on(
    'rowDescription',
    () => count++,
  );
  return () => count;
}

describe('PreparedQuery (rows described once per connection), against PostgreSQL', () => {
  let url: string;
  const clients: pg.Client[] = [];
  const connect = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    url = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end()));
  });

  it('answers every run as pg does, describing the rows on the first run only', async () => {
    const client = await connect();
    const described = describedRows(client);
    const expected = await client.query({ text: TEXT, values: [7, 'x', 2] });
    for (let i = 0; i < 3; i++) {
      const result = await run(client, 'p_rows', TEXT, [7, 'x', 2]);
      expect(result.rows).toHaveLength(2);
      expect(result.rows[0]).toEqual({ ...expected.rows[0], at: result.rows[0].at });
      expect(result.rows[0].at).toBeInstanceOf(Date);
      expect(result.rows[0].doc).toEqual({ a: [1, 2] });
      expect(result.rowCount).toBe(2);
      expect(result.fields.map((f) => f.name)).toEqual(['id', 'name', 'at', 'doc', 'nothing']);
    }
    // One for the unnamed query above, one for the first run of the prepared statement.
    expect(described()).toBe(2);
  });

  it('answers no rows with the layout it kept, and describes again on another connection', async () => {
    const first = await connect();
    await run(first, 'p_empty', TEXT, [1, 'a', 1]);
    const none = await run(first, 'p_empty', TEXT, [1, 'a', 0]);
    expect(none.rows).toEqual([]);
    expect(none.rowCount).toBe(0);

    const second = await connect();
    const described = describedRows(second);
    const rows = (await run(second, 'p_empty', TEXT, [2, 'b', 1])).rows;
    expect(rows).toMatchObject([{ id: '2', name: 'b' }]);
    expect(described()).toBe(1);
  });

  it('fails a run the server refuses, and the connection answers the next one', async () => {
    const client = await connect();
    await run(client, 'p_refused', TEXT, [1, 'a', 1]);
    await expect(run(client, 'p_refused', TEXT, ['not a number', 'a', 1])).rejects.toMatchObject({
      code: '22P02',
    });
    await expect(run(client, 'p_refused', TEXT, [3, 'c', 1])).resolves.toMatchObject({
      rows: [{ id: '3', name: 'c' }],
    });
  });

  it('fails a value that cannot be sent, before the server sees it, and goes on', async () => {
    const client = await connect();
    await run(client, 'p_unsendable', TEXT, [1, 'a', 1]);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await expect(run(client, 'p_unsendable', TEXT, [1, circular, 1])).rejects.toThrow(TypeError);
    await expect(run(client, 'p_unsendable', TEXT, [4, 'd', 1])).resolves.toMatchObject({
      rows: [{ id: '4', name: 'd' }],
    });
  });

  it('gives the rows plain pg gives, for any values', async () => {
    const client = await connect();
    const text = 'SELECT $1::bigint AS n, $2::text AS s, $3::boolean AS b, $4::float8 AS f';
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constant(null), fc.maxSafeInteger()),
        fc.oneof(
          fc.constant(null),
          fc.string().filter((s) => !s.includes('\0')),
        ),
        fc.oneof(fc.constant(null), fc.boolean()),
        fc.oneof(fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true })),
        async (...values) => {
          const plain = await client.query({ text, values });
          const prepared = await run(client, 'p_property', text, values);
          expect(prepared.rows).toEqual(plain.rows);
        },
      ),
      { numRuns: 200 },
    );
  });
});
