import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from './support/eventually.js';
import { newApp, newShop, placeOrder, tokenFor, type Shop } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { webhookInstancesEnv } from './support/webhook-instances.js';
import { peakInFlight, WebhookReceiver, type ReceivedHook } from './support/webhook-receiver.js';

const ENDPOINTS = '/v1/webhook-endpoints';
/** WEBHOOK_ENDPOINT_CONCURRENCY and WEBHOOK_TENANT_CONCURRENCY here: small, so the flood fills them. */
const PER_ENDPOINT = 2;
const PER_TENANT = 4;

/**
 * Section 8 fairness with two instances on one database: tenant A's 39 endpoints never
 * answer (each attempt waits out WEBHOOK_TIMEOUT_SECONDS), and its 234 deliveries hold at
 * most its own slots, while tenant B's deliveries arrive as if A were not there.
 */
describe('webhook deliveries: one tenant cannot starve another', () => {
  let receiver: WebhookReceiver;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    const env = await webhookInstancesEnv({
      WEBHOOK_ENDPOINT_CONCURRENCY: String(PER_ENDPOINT),
      WEBHOOK_TENANT_CONCURRENCY: String(PER_TENANT),
      WEBHOOK_TIMEOUT_SECONDS: '1',
    });
    a = await createTestApp(env, [], undefined, env.DATABASE_URL);
    b = await createTestApp(env, [], undefined, env.DATABASE_URL);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await receiver.close();
  });

  async function newEndpoint(t: TestApp, token: string, prefix: string): Promise<string> {
    const path = `/${prefix}/${randomBytes(4).toString('hex')}`;
    const res = await t.http
      .post(ENDPOINTS)
      .set('authorization', `Bearer ${token}`)
      .send({ url: receiver.url(path), event_types: ['order.created'] });
    expect(res.status).toBe(201);
    return path;
  }
  const orderIdOf = (hook: ReceivedHook) =>
    (JSON.parse(hook.body) as { data: { object: { id: number } } }).data.object.id;

  it("39 endpoints that never answer: tenant A gets its own slots, tenant B's deliveries arrive within 1.5 s", async () => {
    const flooder = await newShop(a);
    // An app has at most 20 endpoints: two apps of tenant A.
    const second = await tokenFor(a, await newApp(a, flooder.tenantId));
    const silent: string[] = [];
    for (let i = 0; i < 39; i++) {
      silent.push(await newEndpoint(a, i < 20 ? flooder.token : second, 'silent'));
    }
    receiver.respond = (hook) =>
      hook.path.startsWith('/silent/') ? new Promise<number>(() => undefined) : 200;
    const victim: Shop = await newShop(b);
    const victimPaths = [
      await newEndpoint(b, victim.token, 'victim'),
      await newEndpoint(b, victim.token, 'victim'),
    ];

    for (let i = 0; i < 6; i++) await placeOrder(i % 2 ? a : b, flooder);
    const flood = () => receiver.received.filter((h) => h.path.startsWith('/silent/'));
    // A's attempts are under way (and its 234 jobs queued before B's) before B orders.
    await within(5000, () => Promise.resolve(flood().length >= PER_TENANT));
    const committed = new Map<number, number>();
    for (let i = 0; i < 15; i++) {
      const order = await placeOrder(i % 2 ? a : b, victim);
      committed.set(order.id, performance.now());
    }
    const victimHooks = () => receiver.received.filter((h) => h.path.startsWith('/victim/'));
    await within(10_000, () => Promise.resolve(victimHooks().length >= 30));

    const lags = victimHooks().map((hook) => hook.at - committed.get(orderIdOf(hook))!);
    lags.sort((x, y) => x - y);
    console.log(
      `tenant B delivery lag while A floods: p50 ${Math.round(lags[14])} ms, max ${Math.round(lags[29])} ms; A requests so far ${flood().length}`,
    );
    // Alone, B's 30 deliveries (4 at a time, its own caps) take 150–450 ms here; so with A.
    expect(lags[29]).toBeLessThan(1500);
    for (const path of victimPaths) expect(receiver.at(path)).toHaveLength(15);

    // A's line keeps moving, within its caps, on both instances together.
    const seen = flood().length;
    await within(5000, () => Promise.resolve(flood().length >= seen + PER_TENANT));
    expect(peakInFlight(flood())).toBeLessThanOrEqual(PER_TENANT);
    for (const path of silent) {
      expect(peakInFlight(receiver.at(path))).toBeLessThanOrEqual(PER_ENDPOINT);
    }
    const [{ n }] = await a.dataSource.query<Array<{ n: number }>>(
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1',
      [flooder.tenantId],
    );
    expect(n).toBe(234);
  }, 30_000);
});
