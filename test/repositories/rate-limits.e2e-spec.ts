import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RateLimitsRepository } from '../../src/rate-limit/rate-limits.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';

/** Rate-limit counters are no tenant's (keys are hashes that name the policy). */
describe('rate-limits repository', () => {
  let r: RepositoryDatabase;
  const limits = new RateLimitsRepository();
  const db = () => r.transactions.db.shared();

  const counters = async () =>
    (await r.inspect.query('SELECT key, points, expire FROM rate_limits ORDER BY key')) as Array<{
      key: string;
      points: number;
      expire: number;
    }>;

  beforeAll(async () => {
    r = await repositoryDatabase();
  });
  afterAll(() => r.close());
  beforeEach(() => r.inspect.query('TRUNCATE rate_limits'));

  it('consume: counts attempts in a window, and starts a new one once it ended', async () => {
    const now = Date.now();
    expect(await limits.consume(db(), 'a', 60_000, now)).toEqual({
      points: 1,
      expire: now + 60_000,
    });
    expect(await limits.consume(db(), 'a', 60_000, now + 1)).toEqual({
      points: 2,
      expire: now + 60_000,
    });
    expect(await limits.consume(db(), 'b', 60_000, now)).toEqual({
      points: 1,
      expire: now + 60_000,
    });
    // Past the end of a's window: a new one.
    expect(await limits.consume(db(), 'a', 60_000, now + 60_000)).toEqual({
      points: 1,
      expire: now + 120_000,
    });
  });

  it('refund: gives one attempt back in a running window only, never below zero', async () => {
    const now = Date.now();
    await r.inspect.query(
      `INSERT INTO rate_limits (key, points, expire)
       VALUES ('running', 2, $1), ('ended', 2, $2), ('empty', 0, $1), ('other', 2, $1)`,
      [now + 60_000, now - 1_000],
    );
    for (const key of ['running', 'ended', 'empty']) await limits.refund(db(), key);
    expect((await counters()).map((c) => [c.key, c.points])).toEqual([
      ['empty', 0],
      ['ended', 2],
      ['other', 2],
      ['running', 1],
    ]);
  });

  it('delete: forgets one key', async () => {
    const now = Date.now();
    await limits.consume(db(), 'a', 60_000, now);
    await limits.consume(db(), 'b', 60_000, now);
    await limits.delete(db(), 'a');
    expect((await counters()).map((c) => c.key)).toEqual(['b']);
  });

  it('addAndRead: adds hits, creates windows, and reads idle ones back', async () => {
    await r.inspect.query(
      `INSERT INTO rate_limits (key, points, expire) VALUES ('hit', 3, 100), ('idle', 5, 100), ('x', 9, 100)`,
    );
    const rows = await limits.addAndRead(
      db(),
      [
        { key: 'hit', points: 2, expire: 100 },
        { key: 'new', points: 1, expire: 200 },
      ],
      ['idle', 'missing'],
    );
    expect(rows.sort((a, b) => a.key.localeCompare(b.key))).toEqual([
      { key: 'hit', points: 5 },
      { key: 'idle', points: 5 },
      { key: 'new', points: 1 },
    ]);
    expect(await counters()).toEqual([
      { key: 'hit', points: 5, expire: 100 },
      { key: 'idle', points: 5, expire: 100 },
      { key: 'new', points: 1, expire: 200 },
      { key: 'x', points: 9, expire: 100 },
    ]);
  });
});
