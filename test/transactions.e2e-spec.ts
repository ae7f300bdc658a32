import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Transactions, UnitOfWorkEndedError } from '../src/database/transactions.js';
import { dataSourceOptions } from '../src/database/data-source-options.js';
import type { Db } from '../src/database/sql/db.js';
import { createTestDatabase } from './support/test-database.js';

/** The backend pid a unit's (or the pool's) statements run on. */
async function backendOf(db: Db): Promise<number> {
  const rows: Array<{ pid: number }> = await db.shared().rows('SELECT pg_backend_pid() AS pid');
  return rows[0].pid;
}

/** A promise and the function that settles it, to interleave units of work by hand. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('Transactions (the ambient unit of work)', () => {
  let dataSource: DataSource;
  let transactions: Transactions;
  beforeAll(async () => {
    dataSource = new DataSource(dataSourceOptions(await createTestDatabase(), 4));
    await dataSource.initialize();
    transactions = new Transactions(dataSource);
  });
  afterAll(() => dataSource.destroy());

  it('a nested run joins the open unit of work, and db is its transaction', async () => {
    await transactions.run(async (outer) => {
      expect(transactions.db).toBe(outer);
      await Promise.resolve();
      await transactions.run(async (inner) => {
        expect(inner).toBe(outer);
        expect(await backendOf(transactions.db)).toBe(await backendOf(outer));
      });
    });
    expect(transactions.db).toBe(transactions.pool);
  });

  it('overlapping units of work keep their own transaction while another one ends', async () => {
    const firstEnds = gate();
    const secondStarted = gate();
    let secondSawAfterFirstEnded: Db | undefined;
    let secondManager: Db | undefined;
    const first = transactions.run(async () => {
      await secondStarted.opened;
    });
    const second = transactions.run(async (manager) => {
      secondManager = manager;
      secondStarted.open();
      await firstEnds.opened;
      // After an await, in a continuation created while the first one was still open.
      await new Promise<void>((resolve) => setImmediate(resolve));
      secondSawAfterFirstEnded = transactions.db;
    });
    await first;
    firstEnds.open();
    await second;
    expect(secondSawAfterFirstEnded).toBe(secondManager);
  });

  it('work a unit of work left running past its end fails, and never writes outside it', async () => {
    await dataSource.query('CREATE TABLE IF NOT EXISTS tx_leftover (n int)');
    const siblingMayGoOn = gate();
    let sibling: Promise<unknown> | undefined;
    await expect(
      transactions.run(async (manager) => {
        // Promise.all rejects at the first failure; the other branch is still running.
        sibling = (async () => {
          await siblingMayGoOn.opened;
          await transactions.db.shared().rows('INSERT INTO tx_leftover VALUES (2)');
        })();
        await manager.shared().rows('INSERT INTO tx_leftover VALUES (1)');
        await Promise.all([sibling, Promise.reject(new Error('one branch failed'))]);
      }),
    ).rejects.toThrow('one branch failed');
    siblingMayGoOn.open();
    await expect(sibling).rejects.toThrow(UnitOfWorkEndedError);
    await expect(transactions.run(() => Promise.resolve())).resolves.toBeUndefined();
    expect(await dataSource.query('SELECT count(*)::int AS n FROM tx_leftover')).toEqual([
      { n: 0 },
    ]);
    // Outside any unit of work, the pool.
    expect(transactions.db).toBe(transactions.pool);
  });

  it("a failed unit of work rolls back and leaves the pool's Db in place", async () => {
    await dataSource.query('CREATE TABLE IF NOT EXISTS tx_probe (n int)');
    await expect(
      transactions.run(async (manager) => {
        await manager.shared().rows('INSERT INTO tx_probe VALUES (1)');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await dataSource.query('SELECT count(*)::int AS n FROM tx_probe')).toEqual([{ n: 0 }]);
    expect(transactions.db).toBe(transactions.pool);
  });

  it('afterCommit runs once the outermost unit commits, never on rollback, at once outside one', async () => {
    const seen: string[] = [];
    await transactions.run(async () => {
      transactions.afterCommit(() => seen.push('outer'));
      await transactions.run(async () => {
        transactions.afterCommit(() => seen.push('joined'));
      });
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['outer', 'joined']);

    await expect(
      transactions.run(async () => {
        transactions.afterCommit(() => seen.push('rolled back'));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    transactions.afterCommit(() => seen.push('outside'));
    expect(seen).toEqual(['outer', 'joined', 'outside']);
  });
});
