import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const FLOOD = 1_500;

/**
 * CONTRACT 8, fairness, with real processes: one tenant queues a flood of imports, another
 * queues a few after it; two worker-only processes then drain the queue. The second tenant's
 * imports are taken at the next turns (import-lanes.repository.ts), not after the flood:
 * only a few batches of the flood are imported before them. A third tenant that arrives
 * while the flood drains takes turns with it from the present turn on.
 */
describe('imports: one tenant’s flood never delays another tenant’s imports', () => {
  let env: Record<string, string>;
  let db: pg.Client;
  const children: ServerProcess[] = [];

  beforeAll(async () => {
    env = { ...(await sharedInstanceEnv('http://127.0.0.1')), API_RATE_LIMIT_PER_TOKEN: '100000' };
    db = new pg.Client({ connectionString: env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    for (const child of children) if (child.child.exitCode === null) child.child.kill('SIGKILL');
    await db.end();
  });

  async function shop(api: ServerProcess, name: string) {
    const tenant = await runCliJson(['tenant', 'create', '--name', name, '--currency', 'EUR'], env);
    const app = await runCliJson(
      [
        'app',
        'create',
        '--tenant',
        String(tenant.id),
        '--name',
        'Connector',
        '--scopes',
        'marketplace:import',
      ],
      env,
    );
    const client = {
      client_id: app.client_id as string,
      client_secret: app.client_secret as string,
    };
    return {
      tenantId: tenant.id as number,
      token: await fetchAccessToken(api, client, 'marketplace:import'),
    };
  }

  async function accept(api: ServerProcess, token: string, count: number, prefix: string) {
    const statuses = await sendImports(api, token, count, prefix, 50);
    expect(statuses.filter((s) => s === 202)).toHaveLength(count);
  }

  const imported = async (tenantId: number): Promise<number> =>
    (
      await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM marketplace_imports WHERE tenant_id = $1 AND status = 'imported'`,
        [tenantId],
      )
    ).rows[0].n;

  it(`${FLOOD} imports of one tenant, then 5 of another: two worker processes take the 5 within the first turns`, async () => {
    const api = await startServer({ ...env, WORKER: 'off' });
    children.push(api);
    const [flooder, quiet, late] = [
      await shop(api, 'Flooder'),
      await shop(api, 'Quiet'),
      await shop(api, 'Late'),
    ];
    await accept(api, flooder.token, FLOOD, 'flood');
    await accept(api, quiet.token, 5, 'quiet');

    // Small batches, so the flood takes long enough to drain for the late tenant to arrive.
    const workerEnv = { ...env, WORKER_CONCURRENCY: '1', IMPORT_BATCH_SIZE: '2' };
    children.push(...(await Promise.all([startWorker(workerEnv), startWorker(workerEnv)])));
    await within(60_000, async () => (await imported(quiet.tenantId)) === 5);

    // Orders take ids in the order they are made: how much of the flood went first.
    const { rows } = await db.query<{ before: number }>(
      `SELECT count(*)::int AS before FROM orders
       WHERE tenant_id = $1 AND id < (SELECT max(id) FROM orders WHERE tenant_id = $2)`,
      [flooder.tenantId, quiet.tenantId],
    );
    // Two processes × one poller × batches of 2 in flight, and the five turns themselves:
    // FIFO would put the whole flood first.
    expect(rows[0].before).toBeLessThanOrEqual(30);
    console.log(
      `import fairness: ${rows[0].before} of ${FLOOD} flood imports went before the other tenant's 5`,
    );

    // A tenant arriving while the flood drains takes turns with it, from the present turn on
    // (the clock): its 300 imports neither wait for the flood nor push it aside.
    await within(60_000, async () => (await imported(flooder.tenantId)) >= 500);
    await accept(api, late.token, 300, 'late');
    await within(60_000, async () => (await imported(late.tenantId)) === 300);
    const { rows: interleaved } = await db.query<{ flood: number; left: number }>(
      `WITH late AS (SELECT min(id) AS first, max(id) AS last FROM orders WHERE tenant_id = $2)
       SELECT (SELECT count(*)::int FROM orders, late
               WHERE tenant_id = $1 AND id BETWEEN late.first AND late.last) AS flood,
              (SELECT count(*)::int FROM marketplace_imports
               WHERE tenant_id = $1 AND status <> 'imported') AS left`,
      [flooder.tenantId, late.tenantId],
    );
    console.log(
      `import fairness: ${interleaved[0].flood} flood imports went between the late tenant's first and last of 300`,
    );
    // Turn by turn, about as many of the flood as of the late tenant; a clock left at zero
    // would put all 300 first (only the imports in flight between them).
    expect(interleaved[0].flood).toBeGreaterThanOrEqual(100);
    expect(interleaved[0].left).toBeGreaterThan(0);

    await within(120_000, async () => (await imported(flooder.tenantId)) === FLOOD);
    for (const child of children) child.child.kill('SIGTERM');
    expect(await Promise.all(children.map((c) => c.exited))).toEqual([0, 0, 0]);
  }, 240_000);
});
