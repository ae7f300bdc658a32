import pg from 'pg';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialsState } from '../src/auth/credentials-state.service.js';
import { AppClientsRepository } from '../src/auth/app-clients.repository.js';
import { CredentialsRepository } from '../src/auth/credentials.repository.js';
import { BackgroundTransactions } from '../src/database/background-transactions.js';
import { Transactions } from '../src/database/transactions.js';
import { dataSourceOptions } from '../src/database/data-source-options.js';
import { within } from './support/eventually.js';
import { createTestDatabase } from './support/test-database.js';

/**
 * The credentials cache is trusted only while its LISTEN connection is up. A connection lost
 * while the listener is still loading the cache must leave the cache distrusted (checks go to
 * the database) until a new connection listens and reloads: trusting a cache with no listener
 * would miss revocations until the next reconciliation, up to 30 s later.
 */
describe('credentials listener lost mid-reload', () => {
  let url: string;
  let main: DataSource;
  let background: DataSource;
  let admin: pg.Client;

  beforeAll(async () => {
    url = await createTestDatabase();
    main = await new DataSource(dataSourceOptions(url, 2)).initialize();
    background = await new DataSource(
      dataSourceOptions(url, { size: 2, applicationName: 'storefront-background' }),
    ).initialize();
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin.end();
    await main.destroy();
    await background.destroy();
  });

  const newState = () =>
    new CredentialsState(
      new Transactions(main),
      new BackgroundTransactions(background),
      new CredentialsRepository(),
      new AppClientsRepository(),
      main,
    );

  const listenerPids = async (): Promise<number[]> =>
    (
      await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'storefront-listener'`,
      )
    ).rows.map((r) => r.pid);

  it('stays distrusted when the listener dies during its reload, and trusts the next one', async () => {
    const state = newState();
    // Hold the reload: it reads app_tokens, which this transaction locks.
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE app_tokens IN ACCESS EXCLUSIVE MODE');
    const bootstrap = state.onApplicationBootstrap();
    try {
      // The listener is connected and listening; its reload waits for the lock.
      await within(5_000, async () => {
        const waiting = await admin.query(
          `SELECT 1 FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return waiting.rowCount! > 0;
      });
      const [pid] = await listenerPids();
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await within(5_000, async () => !(await listenerPids()).includes(pid));
      await blocker.query('COMMIT');
      await bootstrap;

      // The reload finished after its connection was gone: not trusted.
      expect(state.cacheTrusted).toBe(false);
      // The one reconnect scheduled by the loss listens and reloads; then, and only then, trusted.
      await within(5_000, async () => state.cacheTrusted);
      expect(await listenerPids()).toHaveLength(1);
    } finally {
      await blocker.end().catch(() => undefined);
      await bootstrap.catch(() => undefined);
      await state.onApplicationShutdown();
    }
  });

  it('a reconciliation while the listener is gone does not bring trust back; the reconnect does', async () => {
    const state = newState();
    await state.onApplicationBootstrap();
    try {
      expect(state.cacheTrusted).toBe(true);
      const [pid] = await listenerPids();
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await within(5_000, async () => !state.cacheTrusted);
      // The reconnect waits a second; a reconciliation now has no listener to trust.
      await state.refresh();
      expect(state.cacheTrusted).toBe(false);
      await within(5_000, async () => state.cacheTrusted);
      expect(await listenerPids()).toHaveLength(1);
    } finally {
      await state.onApplicationShutdown();
    }
  });
});
