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

/**
 * A database that stops answering without closing its connections (a partition, a host that
 * froze): the server is SIGSTOPped with its backends. Its own statement_timeout cannot fire,
 * so the client-side deadline must: requests answer 503 with Retry-After instead of hanging,
 * readiness turns 503, the process stays up, and all of it recovers once the server runs on.
 */
describe('a database that stops answering without closing connections', () => {
  let server: OwnedPostgres;
  let instance: ServerProcess;
  let token: string;

  beforeAll(async () => {
    server = await startOwnedPostgres();
    const port = await freePort();
    const env = {
      ...(await sharedInstanceEnv(
        `http://127.0.0.1:${port}`,
        await server.createDatabase('storefront'),
      )),
      PORT: String(port),
      // The client-side deadline is this plus 2 s.
      DB_STATEMENT_TIMEOUT_MS: '1000',
    };
    instance = await startServer(env);
    const tenant = await runCliJson(
      ['tenant', 'create', '--name', 'Frozen', '--currency', 'EUR'],
      env,
    );
    const client = (await runCliJson(
      ['app', 'create', '--tenant', String(tenant.id), '--name', 'ERP', '--scopes', 'orders:read'],
      env,
    )) as unknown as { client_id: string; client_secret: string };
    token = await fetchAccessToken(instance, client, 'orders:read');
  });

  afterAll(async () => {
    await server?.freeze(false).catch(() => undefined);
    if (instance && instance.child.exitCode === null) {
      instance.child.kill('SIGTERM');
      await instance.exited;
    }
    await server?.destroy();
  });

  const list = () =>
    fetch(`${instance.url}/v1/orders?limit=1`, { headers: { authorization: `Bearer ${token}` } });

  it('answers 503 with Retry-After within its deadlines, never hangs, and recovers', async () => {
    // Several at once, so that the pool holds connections that the freeze leaves open.
    for (const res of await Promise.all(Array.from({ length: 4 }, list))) {
      expect(res.status).toBe(200);
    }
    await server.freeze(true);
    try {
      const started = performance.now();
      const answers = await Promise.all(Array.from({ length: 4 }, list));
      const elapsed = performance.now() - started;
      for (const res of answers) {
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('5');
        expect(((await res.json()) as { error: string }).error).toBe('unavailable');
      }
      // The client deadline (1 s + 2 s) or the pool's 5 s wait for a new connection.
      expect(elapsed).toBeLessThan(7_000);
      await within(3_000, async () => (await fetch(`${instance.url}/health/ready`)).status === 503);
      expect(instance.child.exitCode).toBeNull();
    } finally {
      await server.freeze(false);
    }
    await within(8_000, async () => {
      const ready = await fetch(`${instance.url}/health/ready`);
      return ready.status === 200 && (await list()).status === 200;
    });
    expect(instance.stdout()).not.toMatch(/unhandled promise rejection|uncaught exception/);
    expect(instance.stdout()).not.toContain('"msg":"unexpected error"');
  }, 60_000);
});
