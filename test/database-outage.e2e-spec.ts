import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/database/free-port.js';
import { within } from './support/eventually.js';
import { startOwnedPostgres, type OwnedPostgres } from './support/owned-postgres.js';
import {
  fetchAccessToken,
  runCliJson,
  sharedInstanceEnv,
  startServer,
  type ServerProcess,
} from './support/processes.js';

/** Every answer the load got, by what it means for the documented behaviour. */
interface Tally {
  statuses: Map<number, number>;
  /**
   * Anything but the documented 503 (docs/BEHAVIOUR.md#shared-error-rules) while the database is
   * away: 5xx other than 503, a 503 without Retry-After or in another shape, a socket error.
   */
  violations: string[];
}

const LOOPS = 8;

/**
 * Issue "No database restart, tenant or client can take the service down": two instances of
 * the server on a PostgreSQL the test owns, under a mixed load (creates with
 * Idempotency-Keys, reads, lists, marketplace imports), through `pg_ctl restart -m fast`, then
 * `pg_ctl stop -m immediate` and a start. No process exits, nothing answers 500, every
 * refusal is 503 with Retry-After, both instances serve within 5 s of the database, every
 * acknowledged write is there exactly once, queued imports finish, and a token revoked after
 * the restart is refused by both within 1 s.
 */
describe('database outages under load, two instances', () => {
  let server: OwnedPostgres;
  let env: Record<string, string>;
  let a: ServerProcess;
  let b: ServerProcess;
  let clientOf: { client_id: string; client_secret: string };
  let token: string;
  let productId: number;

  beforeAll(async () => {
    server = await startOwnedPostgres();
    const port = await freePort();
    env = {
      ...(await sharedInstanceEnv(
        `http://127.0.0.1:${port}`,
        await server.createDatabase('storefront'),
      )),
      API_RATE_LIMIT_PER_TOKEN: '1000000',
      WORKER_CONCURRENCY: '2',
      // An attempt cut off by the outage is retried soon, and often enough to outlast it.
      IMPORT_JOB_TIMEOUT_SECONDS: '5',
      IMPORT_RETRY_DELAY_SECONDS: '1',
      IMPORT_RETRY_LIMIT: '20',
    };
    [a, b] = await Promise.all([startServer({ ...env, PORT: String(port) }), startServer(env)]);
    const tenant = await runCliJson(
      ['tenant', 'create', '--name', 'Outage', '--currency', 'EUR'],
      env,
    );
    const tenantArg = ['--tenant', String(tenant.id)];
    const product = await runCliJson(
      ['product', 'create', ...tenantArg, '--sku', 'SKU-1', '--name', 'Widget', '--price', '9.99'],
      env,
    );
    productId = product.id as number;
    const scopes = 'orders:read orders:write marketplace:import';
    clientOf = (await runCliJson(
      ['app', 'create', ...tenantArg, '--name', 'ERP', '--scopes', scopes],
      env,
    )) as unknown as typeof clientOf;
    token = await fetchAccessToken(a, clientOf, scopes);
  });

  afterAll(async () => {
    for (const instance of [a, b]) {
      if (instance && instance.child.exitCode === null) {
        instance.child.kill('SIGTERM');
        await instance.exited;
      }
    }
    await server?.destroy();
  });

  it('survives a restart and a hard stop: 503 with Retry-After meanwhile, nothing lost or doubled', async () => {
    const tally: Tally = { statuses: new Map(), violations: [] };
    const acked = { orders: new Map<string, number>(), imports: new Set<string>() };
    let stop = false;
    const loops = Array.from({ length: LOOPS }, (_, i) => loadLoop(i, () => stop, tally, acked));

    await within(10_000, async () => acked.orders.size >= LOOPS);
    await server.restart();
    const afterRestart = await bothServeWithin(5_000);

    await within(10_000, async () => acked.orders.size >= 3 * LOOPS);
    await server.stop('immediate');
    // While it is down: both instances answer, readiness and requests alike, 503 + Retry-After.
    for (const instance of [a, b]) {
      // Readiness repeats a ping's answer for 250 ms (database-probe.ts): one taken just before
      // the stop may still say 200; the next ones say 503.
      let ready: Response | undefined;
      await within(1_000, async () => {
        ready = await fetch(`${instance.url}/health/ready`);
        return ready.status === 503;
      });
      expect(ready?.headers.get('retry-after')).toBe('5');
      const read = await api(instance, 'GET', '/v1/orders?limit=1');
      expect(read.status).toBe(503);
      expect(read.headers.get('retry-after')).toBeTruthy();
      expect(((await read.json()) as { error: string }).error).toBe('unavailable');
    }
    await within(3_000, async () => (tally.statuses.get(503) ?? 0) > LOOPS);
    await server.start();
    const afterStart = await bothServeWithin(5_000);

    // A token revoked after the restarts is refused by both instances within 1 s.
    const issued = await runCliJson(
      ['app', 'token', '--client-id', clientOf.client_id, '--scopes', 'orders:read'],
      env,
    );
    const revocable = issued.access_token as string;
    for (const instance of [a, b]) {
      expect((await api(instance, 'GET', '/v1/orders?limit=1', undefined, revocable)).status).toBe(
        200,
      );
    }
    await runCliJson(['app', 'revoke-token', '--token-id', issued.token_id as string], env);
    const refusedWithin = await Promise.all(
      [a, b].map((instance) =>
        within(
          1_000,
          async () =>
            (await api(instance, 'GET', '/v1/orders?limit=1', undefined, revocable)).status === 401,
        ),
      ),
    );

    const settledAt = acked.orders.size;
    await within(10_000, async () => acked.orders.size >= settledAt + LOOPS);
    stop = true;
    await Promise.all(loops);

    const unexpected = [a, b].flatMap((instance) =>
      instance
        .stdout()
        .split('\n')
        .filter((line) => line.includes('unexpected error')),
    );
    expect({ violations: tally.violations, unexpected }).toEqual({
      violations: [],
      unexpected: [],
    });
    expect(tally.statuses.get(500) ?? 0).toBe(0);
    expect(tally.statuses.get(201) ?? 0).toBeGreaterThan(0);
    for (const instance of [a, b]) expect(instance.child.exitCode).toBeNull();
    for (const instance of [a, b]) {
      expect(instance.stdout()).not.toMatch(/unhandled promise rejection|uncaught exception/);
      const metrics = await (await fetch(`${instance.url}/metrics`)).text();
      expect(metrics).toMatch(/process_unhandled_faults_total\{kind="unhandled_rejection"\} 0/);
    }

    // Every acknowledged order exactly once, readable by id on both instances.
    const db = new pg.Client({ connectionString: env.DATABASE_URL });
    await db.connect();
    try {
      const ids = [...acked.orders.values()];
      expect(new Set(ids).size).toBe(ids.length);
      const [{ api: created }] = (
        await db.query<{ api: number }>(
          "SELECT count(*)::int AS api FROM orders WHERE source = 'api'",
        )
      ).rows;
      // Every key was retried until acknowledged, so no order exists that was not acknowledged.
      expect(created).toBe(ids.length);
      for (const id of ids.slice(-5)) {
        for (const instance of [a, b]) {
          expect((await api(instance, 'GET', `/v1/orders/${id}`)).status).toBe(200);
        }
      }
      // Every accepted import is imported, once.
      await within(40_000, async () => {
        const { rows } = await db.query<{ imported: number }>(
          "SELECT count(*)::int AS imported FROM marketplace_imports WHERE status = 'imported'",
        );
        return rows[0].imported === acked.imports.size;
      });
      const [{ imported }] = (
        await db.query<{ imported: number }>(
          "SELECT count(*)::int AS imported FROM orders WHERE source = 'marketplace'",
        )
      ).rows;
      expect(imported).toBe(acked.imports.size);
    } finally {
      await db.end();
    }
    // eslint-disable-next-line no-console
    console.info(
      `outage: serving again ${afterRestart.map(Math.round).join('/')} ms after the restart, ` +
        `${afterStart.map(Math.round).join('/')} ms after the start; revocation refused in ` +
        `${refusedWithin.map(Math.round).join('/')} ms; answers ${JSON.stringify(Object.fromEntries(tally.statuses))}; ` +
        `${acked.orders.size} orders, ${acked.imports.size} imports acknowledged`,
    );
  }, 120_000);

  /** Ms until both instances are ready and serve an authenticated read, each. */
  function bothServeWithin(deadlineMs: number): Promise<number[]> {
    return Promise.all(
      [a, b].map((instance) =>
        within(deadlineMs, async () => {
          const ready = await fetch(`${instance.url}/health/ready`);
          if (ready.status !== 200) return false;
          return (await api(instance, 'GET', '/v1/orders?limit=1')).status === 200;
        }),
      ),
    );
  }

  function api(
    instance: ServerProcess,
    method: string,
    path: string,
    body?: object,
    bearer = token,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return fetch(`${instance.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body ? JSON.stringify(body) : undefined,
    });
  }

  /**
   * One client: creates (each key retried until acknowledged, as a careful integrator
   * does), reads, lists and imports, alternating instances, until told to stop.
   */
  async function loadLoop(
    loop: number,
    stopped: () => boolean,
    tally: Tally,
    acked: { orders: Map<string, number>; imports: Set<string> },
  ): Promise<void> {
    let lastId: number | undefined;
    for (let turn = 0; !stopped(); turn++) {
      const instance = (loop + turn) % 2 === 0 ? a : b;
      switch (turn % 4) {
        case 0: {
          const key = randomUUID();
          const order = {
            customer: { name: 'Ada', email: `ada+${loop}@example.com` },
            shipping_address: { country: 'DE', city: 'Berlin', address: 'Main 1' },
            items: [{ product_id: productId, quantity: 1 }],
          };
          for (;;) {
            const res = await send(tally, () =>
              api(instance, 'POST', '/v1/orders', order, token, { 'idempotency-key': key }),
            );
            if (res?.ok) {
              lastId = ((await res.json()) as { id: number }).id;
              acked.orders.set(key, lastId);
              break;
            }
          }
          break;
        }
        case 1:
          if (lastId) await send(tally, () => api(instance, 'GET', `/v1/orders/${lastId}`));
          break;
        case 2:
          await send(tally, () => api(instance, 'GET', '/v1/orders?limit=5&status=pending'));
          break;
        case 3: {
          const external = `ext-${loop}-${turn}`;
          const payload = {
            marketplace: 'acme',
            external_order_id: external,
            customer: { name: 'Bo', email: 'bo@example.com' },
            shipping_address: { country: 'DE', city: 'Köln', address: 'Ring 2' },
            items: [{ sku: 'M-1', name: 'Thing', quantity: 2, unit_price: 5, total: 10 }],
          };
          for (;;) {
            const res = await send(tally, () =>
              api(instance, 'POST', '/v1/marketplace/orders/import', payload),
            );
            if (res?.ok) {
              acked.imports.add(external);
              break;
            }
          }
          break;
        }
      }
    }
  }
});

/** A client's pause after a refusal (shorter than Retry-After, to keep the test short). */
function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 50));
}

/** Sends one request, records its answer, and flags whatever docs/BEHAVIOUR.md does not allow. */
async function send(tally: Tally, request: () => Promise<Response>): Promise<Response | undefined> {
  let res: Response;
  try {
    res = await request();
  } catch (error) {
    tally.violations.push(`socket: ${String((error as Error).cause ?? error)}`);
    await pause();
    return undefined;
  }
  tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1);
  if (res.status >= 500) {
    const body = (await res
      .clone()
      .json()
      .catch(() => ({}))) as { error?: string };
    if (res.status !== 503 || body.error !== 'unavailable' || !res.headers.get('retry-after')) {
      tally.violations.push(`${res.status} ${JSON.stringify(body)}`);
    }
  }
  // Any refusal (a 503, or a 409 of a key still in use) is retried after a pause, never in a
  // hot loop.
  if (!res.ok) await pause();
  return res;
}
