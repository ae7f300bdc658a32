import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from './support/eventually.js';
import {
  fetchAccessToken,
  runCliJson,
  sharedInstanceEnv,
  startServer,
  startWorker,
  type ServerProcess,
} from './support/processes.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

/**
 * docs/BEHAVIOUR.md#webhooks with real processes: events committed by a process that dies before
 * delivering anything are delivered after a restart (at least once), signed.
 */
describe('webhook durability', () => {
  let env: Record<string, string>;
  let receiver: WebhookReceiver;
  let db: pg.Client;
  const children: ServerProcess[] = [];

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    env = {
      ...(await sharedInstanceEnv('http://127.0.0.1')),
      API_RATE_LIMIT_PER_TOKEN: '100000',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_DISPATCH_INTERVAL_MS: '100',
    };
    db = new pg.Client({ connectionString: env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    for (const child of children) if (child.child.exitCode === null) child.child.kill('SIGKILL');
    await db.end();
    await receiver.close();
  });

  const cli = (args: string[]) => runCliJson(args, env);

  it('SIGKILL after the commits, before any delivery: a restarted worker delivers every event', async () => {
    const tenant = await cli(['tenant', 'create', '--name', 'Hooks', '--currency', 'EUR']);
    const tenantId = String(tenant.id);
    const product = await cli([
      'product',
      'create',
      '--tenant',
      tenantId,
      '--sku',
      'S1',
      '--name',
      'Thing',
      '--price',
      '3.50',
    ]);
    const app = await cli([
      'app',
      'create',
      '--tenant',
      tenantId,
      '--name',
      'ERP',
      '--scopes',
      // orders:read entitles the app to order events (webhooks:write alone reads nothing).
      'orders:read orders:write webhooks:write',
    ]);

    // This process serves the API but works no jobs: nothing it commits is delivered by it.
    const server = await startServer({ ...env, WORKER: 'off' });
    children.push(server);
    const token = await fetchAccessToken(
      server,
      { client_id: app.client_id as string, client_secret: app.client_secret as string },
      'orders:write webhooks:write',
    );
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const endpoint = (await (
      await fetch(`${server.url}/v1/webhook-endpoints`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: receiver.url('/durable'), event_types: ['order.created'] }),
      })
    ).json()) as { id: number; secret: string };
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${server.url}/v1/orders`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          customer: { name: 'Ada', email: 'ada@example.com' },
          shipping_address: { country: 'DE', city: 'Berlin', address: 'Str 1' },
          items: [{ product_id: product.id, quantity: 1 }],
        }),
      });
      expect(res.status).toBe(201);
    }
    server.child.kill('SIGKILL');
    await server.exited;
    expect(receiver.at('/durable')).toEqual([]);

    const worker = await startWorker(env);
    children.push(worker);
    await within(30_000, () => Promise.resolve(receiver.at('/durable').length >= 20)).catch(
      async (error: unknown) => {
        const { rows: state } = await db.query(
          `SELECT (SELECT count(*) FROM webhook_deliveries) AS deliveries,
             (SELECT txid::text || '/' || seq FROM webhook_dispatch) AS position,
             (SELECT max(txid)::text FROM events) AS last_txid,
             pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`,
        );
        const { rows: open } = await db.query(
          `SELECT datname, state, backend_xid::text, now() - xact_start AS age, left(query, 80) AS query
           FROM pg_stat_activity WHERE backend_xid IS NOT NULL ORDER BY xact_start LIMIT 5`,
        );
        throw new Error(
          `${String(error)}: received ${receiver.at('/durable').length}; ${JSON.stringify(state)} ${JSON.stringify(open)}\n${worker.stdout().slice(-3000)}`,
        );
      },
    );
    const verifier = new Webhook(endpoint.secret);
    const ids = receiver.at('/durable').map((hook) => {
      verifier.verify(hook.body, hook.headers);
      return hook.headers['webhook-id'];
    });
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM events WHERE tenant_id = $1 AND type = 'order.created'`,
      [tenant.id],
    );
    expect(new Set(ids)).toEqual(new Set(rows.map((r) => r.id)));
    worker.child.kill('SIGTERM');
    await worker.exited;
  }, 90_000);
});
