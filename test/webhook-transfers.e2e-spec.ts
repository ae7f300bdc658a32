import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Transactions } from '../src/database/transactions.js';
import { WebhookDeliverySlotsRepository } from '../src/webhooks/webhook-delivery-slots.repository.js';
import { WebhookDispatcher } from '../src/webhooks/webhook-dispatcher.service.js';
import { within } from './support/eventually.js';
import { newShop, placeOrder, type Shop } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { webhookInstancesEnv } from './support/webhook-instances.js';
import { peakInFlight, WebhookReceiver, type ReceivedHook } from './support/webhook-receiver.js';

const ENDPOINTS = '/v1/webhook-endpoints';
const PER_ENDPOINT = 3;
/** As the endpoint's: one endpoint can hold every slot of its tenant. */
const PER_TENANT = 3;

/**
 * A finished attempt hands its slot straight to the next delivery of its endpoint's line,
 * without the tenant's lock (webhook-delivery-slots.repository.ts, `transfer`), and a release
 * that wakes nobody holds the lock shared. Checked with two instances on one database: the
 * caps still hold, every delivery is made once and the lines drain to the end, and a busy
 * endpoint does not keep its slots while another endpoint of the tenant waits with older
 * deliveries.
 */
describe('webhook slots handed on', () => {
  let receiver: WebhookReceiver;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    const env = await webhookInstancesEnv({
      WEBHOOK_ENDPOINT_CONCURRENCY: String(PER_ENDPOINT),
      WEBHOOK_TENANT_CONCURRENCY: String(PER_TENANT),
    });
    a = await createTestApp(env, [], undefined, env.DATABASE_URL);
    b = await createTestApp(env, [], undefined, env.DATABASE_URL);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await receiver.close();
  });

  async function newEndpoint(shop: Shop): Promise<string> {
    const path = `/hooks/${randomBytes(4).toString('hex')}`;
    const res = await a.http
      .post(ENDPOINTS)
      .set('authorization', `Bearer ${shop.token}`)
      .send({ url: receiver.url(path), event_types: ['order.created'] });
    expect(res.status).toBe(201);
    return path;
  }
  const eventIdOf = (hook: ReceivedHook) => hook.headers['webhook-id'];
  /** Answers 200 after `ms`, so lines build up behind the slots. */
  const slowly = (ms: number) => () =>
    new Promise<number>((resolve) => setTimeout(() => resolve(200), ms));

  async function deliveryStates(tenantId: number) {
    return a.dataSource.query<Array<{ state: string; attempts: number; n: number }>>(
      `SELECT state, attempts, count(*)::int AS n FROM webhook_deliveries
       WHERE tenant_id = $1 GROUP BY 1, 2`,
      [tenantId],
    );
  }

  it('two busy endpoints, two instances: caps hold, each delivery once, one attempt each', async () => {
    const shop = await newShop(a);
    const paths = [await newEndpoint(shop), await newEndpoint(shop)];
    receiver.respond = slowly(40);
    const orders = 80;
    // Created from both instances, 8 at a time: the lines fill faster than they drain.
    for (let i = 0; i < orders; i += 8) {
      await Promise.all(Array.from({ length: 8 }, (_, j) => placeOrder((i + j) % 2 ? a : b, shop)));
    }
    const mine = () => receiver.received.filter((h) => paths.includes(h.path));
    await within(30_000, () => Promise.resolve(mine().length >= 2 * orders));

    for (const path of paths) {
      const hooks = receiver.at(path);
      expect(new Set(hooks.map(eventIdOf)).size).toBe(orders);
      expect(hooks).toHaveLength(orders);
      expect(peakInFlight(hooks)).toBeLessThanOrEqual(PER_ENDPOINT);
    }
    expect(peakInFlight(mine())).toBeLessThanOrEqual(PER_TENANT);
    // The tenant's slots were in use together: the cap was reached, not left idle.
    expect(peakInFlight(mine())).toBe(PER_TENANT);
    await within(5000, async () => {
      const states = await deliveryStates(shop.tenantId);
      return states.length === 1 && states[0].state === 'succeeded';
    });
    expect(await deliveryStates(shop.tenantId)).toEqual([
      { state: 'succeeded', attempts: 1, n: 2 * orders },
    ]);
  }, 60_000);

  it('an endpoint with a line does not keep the slots while another has older deliveries waiting', async () => {
    const shop = await newShop(a);
    const first = await newEndpoint(shop);
    receiver.respond = slowly(40);
    // The first endpoint's line starts alone (its first deliveries take every slot of the
    // tenant), then the second endpoint joins with deliveries of the same events. Handing
    // each slot on within the first endpoint's line would starve the second until the
    // first's line was empty.
    for (let i = 0; i < 4; i++) await placeOrder(a, shop);
    const second = await newEndpoint(shop);
    const orders = 40;
    await Promise.all(Array.from({ length: orders }, (_, i) => placeOrder(i % 2 ? a : b, shop)));
    await within(30_000, () =>
      Promise.resolve(
        receiver.at(first).length >= orders + 4 && receiver.at(second).length >= orders,
      ),
    );
    // In the order they fell due, across the tenant's endpoints: the second endpoint's
    // deliveries go along with the first's, not after the first's whole line.
    const firstArrival = receiver.at(second)[0].at;
    const firstBefore = receiver.at(first).filter((h) => h.at < firstArrival).length;
    console.log(
      `first endpoint: ${firstBefore} of ${orders + 4} delivered before the second's first`,
    );
    expect(firstBefore).toBeLessThan(orders / 2);
    expect(peakInFlight(receiver.at(first))).toBeLessThanOrEqual(PER_ENDPOINT);
    expect(peakInFlight([...receiver.at(first), ...receiver.at(second)])).toBeLessThanOrEqual(
      PER_TENANT,
    );
  }, 60_000);
});

/**
 * The hand-off counts the slots it swaps: a claim whose lease ran out and whose slot went to
 * another attempt meanwhile hands nothing on (else the endpoint would have one attempt more
 * than its cap, for as long as its line lasted). No worker runs here: the rows are set as
 * such a race leaves them, and the statement is called as the worker would call it.
 */
describe('webhook slots handed on: the counts', () => {
  let t: TestApp;
  const receiver = { url: 'http://127.0.0.1:9/never-called' };

  beforeAll(async () => {
    t = await createTestApp({
      WORKER: 'off',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ENDPOINT_CONCURRENCY: '1',
      WEBHOOK_TENANT_CONCURRENCY: '1',
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function threeDeliveries() {
    const shop = await newShop(t);
    const res = await t.http
      .post(ENDPOINTS)
      .set('authorization', `Bearer ${shop.token}`)
      .send({ url: receiver.url, event_types: ['order.created'] });
    expect(res.status).toBe(201);
    for (let i = 0; i < 3; i++) await placeOrder(t, shop);
    const deliveries = () =>
      t.dataSource.query<Array<{ id: number; endpoint_id: number }>>(
        'SELECT id, endpoint_id FROM webhook_deliveries WHERE tenant_id = $1 ORDER BY id',
        [shop.tenantId],
      );
    // Dispatch passes only events below every open transaction of the cluster (the feed's
    // commit rule): another spec's open transaction may hold it back for a moment.
    await within(10_000, async () => {
      await t.app.get(WebhookDispatcher).dispatchAll();
      return (await deliveries()).length === 3;
    });
    const rows = await deliveries();
    return { tenantId: shop.tenantId, endpointId: rows[0].endpoint_id, ids: rows.map((r) => r.id) };
  }

  /** `x` in flight as attempt 1 (its lease `leaseSeconds` from now), `y` as given, `z` in line. */
  async function setRows(ids: number[], xLeaseSeconds: number, yClaimed: boolean) {
    const [x, y, z] = ids;
    await t.dataSource.query(
      `UPDATE webhook_deliveries SET attempts = 1, waiting_since = NULL, woken_until = NULL,
         claimed_until = now() + make_interval(secs => $2) WHERE id = $1`,
      [x, xLeaseSeconds],
    );
    await t.dataSource.query(
      `UPDATE webhook_deliveries SET woken_until = NULL,
         attempts = CASE WHEN $2 THEN 1 ELSE 0 END,
         claimed_until = CASE WHEN $2 THEN now() + interval '60 seconds' END,
         waiting_since = CASE WHEN $2 THEN NULL ELSE now() END
       WHERE id = $1`,
      [y, yClaimed],
    );
    await t.dataSource.query(
      `UPDATE webhook_deliveries SET woken_until = NULL, claimed_until = NULL, attempts = 0,
         waiting_since = now() - interval '1 second' WHERE id = $1`,
      [z],
    );
  }

  const succeed = (tenantId: number, x: number, endpointId: number, cap = 1) =>
    t.app
      .get(WebhookDeliverySlotsRepository)
      .succeedAndTransfer(t.app.get(Transactions).db.tenant(tenantId), x, 1, 204, endpointId, {
        perEndpoint: cap,
        perTenant: cap,
        leaseSeconds: 25,
        wakeSeconds: 60,
      });

  it('a live claim at the cap hands its slot to the first in line', async () => {
    const { tenantId, endpointId, ids } = await threeDeliveries();
    await setRows(ids, 25, false);
    const result = await succeed(tenantId, ids[0], endpointId);
    expect(result.recorded).toBe(true);
    // y and z both wait, due at the same time: y is first in line by id.
    expect(result.next?.deliveryId).toBe(ids[1]);
    expect(result.next?.attempt).toBe(1);
  });

  it('a lapsed claim whose slot another attempt holds hands nothing on: one attempt in flight', async () => {
    const { tenantId, endpointId, ids } = await threeDeliveries();
    await setRows(ids, -1, true);
    const result = await succeed(tenantId, ids[0], endpointId);
    expect(result).toEqual({ recorded: true });
    const inFlight = await t.dataSource.query<Array<{ id: number }>>(
      'SELECT id FROM webhook_deliveries WHERE tenant_id = $1 AND claimed_until > now()',
      [tenantId],
    );
    expect(inFlight).toEqual([{ id: ids[1] }]);
  });

  it('with a slot to spare, nothing is handed on: a wake fills every free slot at once', async () => {
    const { tenantId, endpointId, ids } = await threeDeliveries();
    await setRows(ids, 25, false);
    // Caps of 2: after x's release both slots are free, so the hand-off is not the last one.
    expect(await succeed(tenantId, ids[0], endpointId, 2)).toEqual({ recorded: true });
  });

  it('a claim with less than 5 s of its lease left is recorded and hands nothing on', async () => {
    const { tenantId, endpointId, ids } = await threeDeliveries();
    await setRows(ids, 3, false);
    expect(await succeed(tenantId, ids[0], endpointId)).toEqual({ recorded: true });
    const [x] = await t.dataSource.query<Array<{ state: string }>>(
      'SELECT state FROM webhook_deliveries WHERE id = $1',
      [ids[0]],
    );
    expect(x.state).toBe('succeeded');
  });
});
