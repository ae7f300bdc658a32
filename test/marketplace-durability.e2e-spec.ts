import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/database/free-port.js';
import { within } from './support/eventually.js';
import { sendImports } from './support/marketplace-imports.js';
import {
  fetchAccessToken,
  runCliJson,
  sharedInstanceEnv,
  startServer,
  startWorker,
  type ServerProcess,
} from './support/processes.js';

/**
 * docs/BEHAVIOUR.md#marketplace-import with real processes: an accepted import survives a SIGKILL
 * of the process that was working on it, is imported exactly once, and workers in several processes
 * share the queue without duplicates or losses.
 */
describe('marketplace import durability', () => {
  let env: Record<string, string>;
  let db: pg.Client;
  const children: ServerProcess[] = [];

  beforeAll(async () => {
    env = {
      ...(await sharedInstanceEnv('http://127.0.0.1')),
      // A killed process's attempt is presumed lost after this and retried.
      IMPORT_JOB_TIMEOUT_SECONDS: '5',
      // 1,000 imports in well under a minute with one token.
      API_RATE_LIMIT_PER_TOKEN: '100000',
    };
    db = new pg.Client({ connectionString: env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    for (const child of children) if (child.child.exitCode === null) child.child.kill('SIGKILL');
    await db.end();
  });

  const cli = (args: string[]) => runCliJson(args, env);

  async function newShop(): Promise<{ tenantId: number; clientId: string; clientSecret: string }> {
    const tenant = await cli(['tenant', 'create', '--name', 'Bazaar', '--currency', 'TRY']);
    const app = await cli([
      'app',
      'create',
      '--tenant',
      String(tenant.id),
      '--name',
      'Connector',
      '--scopes',
      'marketplace:import',
    ]);
    return {
      tenantId: tenant.id as number,
      clientId: app.client_id as string,
      clientSecret: app.client_secret as string,
    };
  }

  const token = (server: ServerProcess, shop: { clientId: string; clientSecret: string }) =>
    fetchAccessToken(
      server,
      { client_id: shop.clientId, client_secret: shop.clientSecret },
      'marketplace:import',
    );

  /** Sends `count` imports, 25 at a time; every one must be accepted (202). */
  async function accept(
    server: ServerProcess,
    accessToken: string,
    count: number,
    prefix: string,
  ): Promise<void> {
    const statuses = await sendImports(server, accessToken, count, prefix);
    expect(statuses.filter((s) => s === 202)).toHaveLength(count);
  }

  async function counts(
    tenantId: number,
  ): Promise<{ imported: number; orders: number; distinct: number; failed: number }> {
    const { rows } = await db.query<{
      imported: number;
      orders: number;
      distinct: number;
      failed: number;
    }>(
      `SELECT (SELECT count(*)::int FROM marketplace_imports WHERE tenant_id = $1 AND status = 'imported') AS imported,
              (SELECT count(*)::int FROM marketplace_imports WHERE tenant_id = $1 AND status = 'failed') AS failed,
              (SELECT count(*)::int FROM orders WHERE tenant_id = $1) AS orders,
              (SELECT count(DISTINCT external_order_id)::int FROM orders WHERE tenant_id = $1) AS distinct`,
      [tenantId],
    );
    return rows[0];
  }

  it('SIGKILL while the worker drains 500 imports: after a restart all 500 are imported, none twice', async () => {
    const shop = await newShop();
    const port = String(await freePort());
    const first = await startServer({
      ...env,
      PORT: port,
      WORKER_CONCURRENCY: '1',
      IMPORT_BATCH_SIZE: '5',
    });
    children.push(first);
    await accept(first, await token(first, shop), 500, 'crash');
    first.child.kill('SIGKILL');
    await first.exited;

    const atKill = await counts(shop.tenantId);
    expect(atKill.imported).toBeLessThan(500);

    const second = await startServer({ ...env, PORT: port });
    children.push(second);
    await within(90_000, async () => (await counts(shop.tenantId)).imported === 500);
    expect(await counts(shop.tenantId)).toEqual({
      imported: 500,
      orders: 500,
      distinct: 500,
      failed: 0,
    });
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 180_000);

  it('two worker processes on one database drain 1,000 imports with no duplicate and no loss', async () => {
    const shop = await newShop();
    const api = await startServer({ ...env, WORKER: 'off' });
    children.push(api);
    await accept(api, await token(api, shop), 1000, 'shared');
    expect((await counts(shop.tenantId)).imported).toBe(0);

    const workers = await Promise.all([
      startWorker({ ...env, LOG_LEVEL: 'debug' }),
      startWorker({ ...env, LOG_LEVEL: 'debug' }),
    ]);
    children.push(...workers);
    await within(90_000, async () => (await counts(shop.tenantId)).imported === 1000);
    expect(await counts(shop.tenantId)).toEqual({
      imported: 1000,
      orders: 1000,
      distinct: 1000,
      failed: 0,
    });

    // Each import was processed exactly once, and both processes took part. A worker logs
    // "imported" after the commit the count above saw: the last lines may still be in the pipe.
    const processed = () =>
      workers.map((w) => (w.stdout().match(/"msg":"imported"/g) ?? []).length);
    await within(5_000, async () => processed()[0] + processed()[1] >= 1000);
    expect(processed().every((n) => n > 0)).toBe(true);
    expect(processed()[0] + processed()[1]).toBe(1000);

    for (const child of [...workers, api]) child.child.kill('SIGTERM');
    expect(await Promise.all([...workers, api].map((c) => c.exited))).toEqual([0, 0, 0]);
  }, 180_000);
});
