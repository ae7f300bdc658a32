import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from './support/eventually.js';
import { newShop, placeOrder, type Shop } from './support/factories.js';
import { sharedInstanceEnv } from './support/processes.js';
import { createTestApp, type TestApp } from './support/test-app.js';
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
    const shared = await sharedInstanceEnv('http://127.0.0.1');
    const env = {
      SECRET_PEPPER: shared.SECRET_PEPPER,
      JWT_SIGNING_KEY: shared.JWT_SIGNING_KEY,
      API_RATE_LIMIT_PER_TOKEN: '100000',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_DISPATCH_INTERVAL_MS: '50',
      WEBHOOK_CONCURRENCY: '8',
      WEBHOOK_ENDPOINT_CONCURRENCY: String(PER_ENDPOINT),
      WEBHOOK_TENANT_CONCURRENCY: String(PER_TENANT),
    };
    a = await createTestApp(env, [], undefined, shared.DATABASE_URL);
    b = await createTestApp(env, [], undefined, shared.DATABASE_URL);
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
    receiver.respond = slowly(15);
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
