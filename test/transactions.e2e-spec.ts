import { DataSource, type EntityManager } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Transactions, UnitOfWorkEndedError } from '../src/common/transactions.js';
import { dataSourceOptions } from '../src/database/data-source-options.js';
import { createTestDatabase } from './support/test-database.js';

/** The backend pid a manager's statements run on. */
async function backendOf(manager: EntityManager): Promise<number> {
  const rows: Array<{ pid: number }> = await manager.query('SELECT pg_backend_pid() AS pid');
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

  it('a nested run joins the open unit of work, and manager is its transaction', async () => {
    await transactions.runWithManager(async (outer) => {
      expect(transactions.legacyManager).toBe(outer);
      await Promise.resolve();
      await transactions.runWithManager(async (inner) => {
        expect(inner).toBe(outer);
        expect(await backendOf(transactions.legacyManager)).toBe(await backendOf(outer));
      });
    });
    expect(transactions.legacyManager).toBe(dataSource.manager);
  });

  it('overlapping units of work keep their own transaction while another one ends', async () => {
    const firstEnds = gate();
    const secondStarted = gate();
    let secondSawAfterFirstEnded: EntityManager | undefined;
    let secondManager: EntityManager | undefined;
    const first = transactions.runWithManager(async () => {
      await secondStarted.opened;
    });
    const second = transactions.runWithManager(async (manager) => {
      secondManager = manager;
      secondStarted.open();
      await firstEnds.opened;
      // After an await, in a continuation created while the first one was still open.
      await new Promise<void>((resolve) => setImmediate(resolve));
      secondSawAfterFirstEnded = transactions.legacyManager;
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
      transactions.runWithManager(async (manager) => {
        // Promise.all rejects at the first failure; the other branch is still running.
        sibling = (async () => {
          await siblingMayGoOn.opened;
          await transactions.legacyManager.query('INSERT INTO tx_leftover VALUES (2)');
        })();
        await manager.query('INSERT INTO tx_leftover VALUES (1)');
        await Promise.all([sibling, Promise.reject(new Error('one branch failed'))]);
      }),
    ).rejects.toThrow('one branch failed');
    siblingMayGoOn.open();
    await expect(sibling).rejects.toThrow(UnitOfWorkEndedError);
    await expect(transactions.runWithManager(() => Promise.resolve())).resolves.toBeUndefined();
    expect(await dataSource.query('SELECT count(*)::int AS n FROM tx_leftover')).toEqual([
      { n: 0 },
    ]);
    // Outside any unit of work, the pool.
    expect(transactions.legacyManager).toBe(dataSource.manager);
  });

  it('a failed unit of work rolls back and leaves the pool as the manager', async () => {
    await dataSource.query('CREATE TABLE IF NOT EXISTS tx_probe (n int)');
    await expect(
      transactions.runWithManager(async (manager) => {
        await manager.query('INSERT INTO tx_probe VALUES (1)');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await dataSource.query('SELECT count(*)::int AS n FROM tx_probe')).toEqual([{ n: 0 }]);
    expect(transactions.legacyManager).toBe(dataSource.manager);
  });

  it('afterCommit runs once the outermost unit commits, never on rollback, at once outside one', async () => {
    const seen: string[] = [];
    await transactions.runWithManager(async () => {
      transactions.afterCommit(() => seen.push('outer'));
      await transactions.runWithManager(async () => {
        transactions.afterCommit(() => seen.push('joined'));
      });
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['outer', 'joined']);

    await expect(
      transactions.runWithManager(async () => {
        transactions.afterCommit(() => seen.push('rolled back'));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    transactions.afterCommit(() => seen.push('outside'));
    expect(seen).toEqual(['outer', 'joined', 'outside']);
  });
});
