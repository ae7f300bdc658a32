import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppsService } from '../src/apps/apps.service.js';
import { Maintenance } from '../src/maintenance/maintenance.service.js';
import { postWebhook } from '../src/webhooks/webhook-sender.js';
import { within } from './support/eventually.js';
import { drainFeed } from './support/feed.js';
import {
  newApp,
  newShop as newShopFor,
  newTenant,
  placeOrder,
  TEST_ADMIN,
  tokenFor,
  type Shop,
} from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { WebhookReceiver, type ReceivedHook } from './support/webhook-receiver.js';

interface Endpoint {
  id: number;
  secret: string;
  path: string;
}

const ENDPOINTS = '/v1/webhook-endpoints';

describe('webhooks', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await createTestApp({
      API_RATE_LIMIT_PER_TOKEN: '100000',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_DISPATCH_INTERVAL_MS: '50',
      WEBHOOK_RETRY_SCHEDULE: '1s,1s',
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const newShop = () => newShopFor(t, 700);
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  async function newEndpoint(s: Shop, eventTypes: string[], token = s.token): Promise<Endpoint> {
    const path = `/hooks/${randomBytes(4).toString('hex')}`;
    const res = await t.http
      .post(ENDPOINTS)
      .set(auth(token))
      .send({ url: receiver.url(path), event_types: eventTypes });
    if (res.status !== 201) throw new Error(`endpoint not created: ${res.status} ${res.text}`);
    return { id: res.body.id as number, secret: res.body.secret as string, path };
  }
  const createOrder = (s: Shop) => placeOrder(t, s);
  const hooksAt = async (path: string, count: number, ms = 5000): Promise<ReceivedHook[]> => {
    await within(ms, () => Promise.resolve(receiver.at(path).length >= count));
    return receiver.at(path);
  };
  const deliveries = async (s: Shop, endpoint: Endpoint) =>
    (await t.http.get(`${ENDPOINTS}/${endpoint.id}/deliveries`).set(auth(s.token))).body as {
      data: Array<Record<string, unknown>>;
      meta: Record<string, number>;
    };
  /** Waits until the dispatcher's position is past every event in the database. */
  const dispatchedAll = () =>
    within(5000, async () => {
      const [{ behind }] = await t.dataSource.query<Array<{ behind: boolean }>>(
        `SELECT EXISTS (SELECT 1 FROM events e, webhook_dispatch d
                        WHERE (e.txid, e.seq) > (d.txid, d.seq)) AS behind`,
      );
      return !behind;
    });
  const verify = (secret: string, hook: ReceivedHook) =>
    new Webhook(secret).verify(hook.body, hook.headers) as Record<string, unknown>;

  describe('endpoints API', () => {
    it('create shows the secret once; list and get never; stored only encrypted', async () => {
      const s = await newShop();
      const res = await t.http
        .post(ENDPOINTS)
        .set(auth(s.token))
        .send({
          url: receiver.url('/unused'),
          event_types: ['order.created'],
          description: 'ERP',
        });
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(`${ENDPOINTS}/${res.body.id}`);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        id: expect.any(Number),
        url: receiver.url('/unused'),
        description: 'ERP',
        event_types: ['order.created'],
        active: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      });
      const { secret, ...shown } = res.body as Record<string, unknown>;
      expect((await t.http.get(`${ENDPOINTS}/${res.body.id}`).set(auth(s.token))).body).toEqual(
        shown,
      );
      expect((await t.http.get(ENDPOINTS).set(auth(s.token))).body).toEqual({ data: [shown] });
      const [row] = await t.dataSource.query<Array<{ sealed: Buffer }>>(
        'SELECT secret_ciphertext AS sealed FROM webhook_endpoints WHERE id = $1',
        [res.body.id],
      );
      const raw = Buffer.from((secret as string).slice(6), 'base64');
      expect(row.sealed.includes(raw)).toBe(false);
      expect(row.sealed.includes(Buffer.from(secret as string))).toBe(false);
    });

    it('PATCH changes url, types and active; DELETE is 204 then 404', async () => {
      const s = await newShop();
      const endpoint = await newEndpoint(s, ['order.created']);
      const patched = await t.http
        .patch(`${ENDPOINTS}/${endpoint.id}`)
        .set(auth(s.token))
        .send({ event_types: ['order.status_changed'], active: false, description: 'paused' });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        event_types: ['order.status_changed'],
        active: false,
        description: 'paused',
      });
      const removed = await t.http.delete(`${ENDPOINTS}/${endpoint.id}`).set(auth(s.token));
      expect(removed.status).toBe(204);
      expect(removed.text).toBe('');
      expect((await t.http.get(`${ENDPOINTS}/${endpoint.id}`).set(auth(s.token))).status).toBe(404);
      expect((await t.http.delete(`${ENDPOINTS}/${endpoint.id}`).set(auth(s.token))).status).toBe(
        404,
      );
    });

    it.each([
      [{ url: 'https://x.example/h', event_types: [] }, 'event_types'],
      [{ url: 'https://x.example/h', event_types: ['order.deleted'] }, 'event_types'],
      [
        { url: 'https://x.example/h', event_types: ['order.created', 'order.created'] },
        'event_types',
      ],
      [{ url: 'https://x.example/h' }, 'event_types'],
      [{ url: 'not a url', event_types: ['order.created'] }, 'url'],
      [{ url: 'https://user:pw@x.example/h', event_types: ['order.created'] }, 'url'],
      [{ url: `https://x.example/${'a'.repeat(2048)}`, event_types: ['order.created'] }, 'url'],
      [{ url: 'https://x.example/h', event_types: ['order.created'], secret: 'mine' }, 'secret'],
    ])('400 validation_failed for %j', async (body, field) => {
      const s = await newShop();
      const res = await t.http.post(ENDPOINTS).set(auth(s.token)).send(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it("another app's or tenant's endpoints are 404; scopes webhooks:read / webhooks:write", async () => {
      const s = await newShop();
      const endpoint = await newEndpoint(s, ['order.created']);
      const sibling = await tokenFor(t, await newApp(t, s.tenantId));
      const stranger = (await newShop()).token;
      for (const token of [sibling, stranger]) {
        expect((await t.http.get(`${ENDPOINTS}/${endpoint.id}`).set(auth(token))).status).toBe(404);
        expect(
          (await t.http.get(`${ENDPOINTS}/${endpoint.id}/deliveries`).set(auth(token))).status,
        ).toBe(404);
        expect(
          (
            await t.http
              .patch(`${ENDPOINTS}/${endpoint.id}`)
              .set(auth(token))
              .send({ active: false })
          ).status,
        ).toBe(404);
        expect(
          (await t.http.post(`${ENDPOINTS}/${endpoint.id}/rotate-secret`).set(auth(token))).status,
        ).toBe(404);
        expect((await t.http.delete(`${ENDPOINTS}/${endpoint.id}`).set(auth(token))).status).toBe(
          404,
        );
        expect((await t.http.get(ENDPOINTS).set(auth(token))).body).toEqual({ data: [] });
      }
      const readOnly = await tokenFor(t, await newApp(t, s.tenantId, ['webhooks:read']));
      const denied = await t.http
        .post(ENDPOINTS)
        .set(auth(readOnly))
        .send({ url: 'https://x.example/h', event_types: ['order.created'] });
      expect(denied.status).toBe(403);
      expect(denied.headers['www-authenticate']).toContain('scope="webhooks:write"');
      const writeOnly = await tokenFor(t, await newApp(t, s.tenantId, ['webhooks:write']));
      const listDenied = await t.http.get(ENDPOINTS).set(auth(writeOnly));
      expect(listDenied.status).toBe(403);
      expect(listDenied.headers['www-authenticate']).toContain('scope="webhooks:read"');
    });

    it('at most 20 per app, even when 30 are created at once', async () => {
      const s = await newShop();
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          t.http
            .post(ENDPOINTS)
            .set(auth(s.token))
            .send({ url: receiver.url(`/limit/${i}`), event_types: ['order.created'] }),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((c) => c === 201)).toHaveLength(20);
      expect(statuses.filter((c) => c === 400)).toHaveLength(10);
      expect((await t.http.get(ENDPOINTS).set(auth(s.token))).body.data).toHaveLength(20);
    });
  });

  describe('deliveries', () => {
    it('signed per Standard Webhooks; the body is the event as the feed shows it', async () => {
      const s = await newShop();
      const endpoint = await newEndpoint(s, ['order.created']);
      const order = await createOrder(s);
      const [hook] = await hooksAt(endpoint.path, 1);
      expect(hook.headers['content-type']).toBe('application/json');
      const payload = verify(endpoint.secret, hook);
      const { events } = await drainFeed(t, s.token, undefined, { types: 'order.created' });
      expect(payload).toEqual(events[0]);
      expect(payload).toMatchObject({ type: 'order.created', data: { object: { id: order.id } } });
      expect(hook.headers['webhook-id']).toBe(events[0].id);
      expect(Number(hook.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -1);
      await within(
        5000,
        async () => (await deliveries(s, endpoint)).data[0]?.state === 'succeeded',
      );
      expect((await deliveries(s, endpoint)).data).toEqual([
        {
          id: expect.any(Number),
          event_id: events[0].id,
          event_type: 'order.created',
          attempts: 1,
          state: 'succeeded',
          last_status_code: 200,
          last_error: null,
          last_attempt_at: expect.any(String),
          next_attempt_at: null,
          created_at: expect.any(String),
        },
      ]);
    });

    it('a failing receiver gets retries with the same webhook-id, then failed; redelivery works', async () => {
      const s = await newShop();
      const endpoint = await newEndpoint(s, ['order.created']);
      const failing = receiver.respond;
      receiver.respond = (hook) => (hook.path === endpoint.path ? 500 : failing(hook));
      try {
        await createOrder(s);
        const hooks = await hooksAt(endpoint.path, 3, 10_000);
        await within(5000, async () => (await deliveries(s, endpoint)).data[0]?.state === 'failed');
        expect(new Set(hooks.map((h) => h.headers['webhook-id'])).size).toBe(1);
        const [failed] = (await deliveries(s, endpoint)).data;
        expect(failed).toMatchObject({
          attempts: 3,
          state: 'failed',
          last_status_code: 500,
          last_error: 'HTTP 500',
          next_attempt_at: null,
        });
      } finally {
        receiver.respond = failing;
      }
      const [failed] = (await deliveries(s, endpoint)).data;
      const again = await t.http
        .post(`${ENDPOINTS}/${endpoint.id}/deliveries/${failed.id as number}/redeliver`)
        .set(auth(s.token));
      expect(again.status).toBe(202);
      expect(again.body).toMatchObject({ id: failed.id, state: 'pending', attempts: 3 });
      const hooks = await hooksAt(endpoint.path, 4);
      expect(hooks[3].headers['webhook-id']).toBe(hooks[0].headers['webhook-id']);
      verify(endpoint.secret, hooks[3]);
      await within(
        5000,
        async () => (await deliveries(s, endpoint)).data[0]?.state === 'succeeded',
      );
      expect((await deliveries(s, endpoint)).data[0]).toMatchObject({
        attempts: 4,
        last_status_code: 200,
      });
      const stranger = await newShop();
      expect(
        (
          await t.http
            .post(`${ENDPOINTS}/${endpoint.id}/deliveries/${failed.id as number}/redeliver`)
            .set(auth(stranger.token))
        ).status,
      ).toBe(404);
    });

    it('a pending delivery whose job was lost is sent again by the maintenance job', async () => {
      const s = await newShop();
      const endpoint = await newEndpoint(s, ['order.created']);
      await createOrder(s);
      await hooksAt(endpoint.path, 1);
      await within(
        5000,
        async () => (await deliveries(s, endpoint)).data[0]?.state === 'succeeded',
      );
      // As if its job had vanished: pending, overdue for an hour, no job in the queue.
      await t.dataSource.query(
        `UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = now() - interval '1 hour'
         WHERE endpoint_id = $1`,
        [endpoint.id],
      );
      const counts = await t.app.get(Maintenance).purgeExpired();
      expect(counts.requeued_deliveries).toBeGreaterThanOrEqual(1);
      const hooks = await hooksAt(endpoint.path, 2);
      expect(hooks[1].headers['webhook-id']).toBe(hooks[0].headers['webhook-id']);
      await within(
        5000,
        async () => (await deliveries(s, endpoint)).data[0]?.state === 'succeeded',
      );
    });

    it('after a rotation both secrets sign for the overlap', async () => {
      const s = await newShop();
      const endpoint = await newEndpoint(s, ['order.created']);
      const rotated = await t.http
        .post(`${ENDPOINTS}/${endpoint.id}/rotate-secret`)
        .set(auth(s.token));
      expect(rotated.status).toBe(200);
      expect(rotated.headers['cache-control']).toBe('no-store');
      expect(rotated.body.secret).not.toBe(endpoint.secret);
      await createOrder(s);
      const [hook] = await hooksAt(endpoint.path, 1);
      expect(hook.headers['webhook-signature'].split(' ')).toHaveLength(2);
      verify(endpoint.secret, hook);
      verify(rotated.body.secret as string, hook);
      // Once the overlap is over, only the new secret signs.
      await t.dataSource.query(
        `UPDATE webhook_endpoints SET previous_secret_expires_at = now() WHERE id = $1`,
        [endpoint.id],
      );
      await createOrder(s);
      const hooks = await hooksAt(endpoint.path, 2);
      verify(rotated.body.secret as string, hooks[1]);
      expect(() => verify(endpoint.secret, hooks[1])).toThrow('No matching signature found');
    });

    it('only the subscribed types, only the own tenant, and app events only to that app', async () => {
      const s = await newShop();
      const other = await newShop();
      const statusOnly = await newEndpoint(s, ['order.status_changed']);
      const adminWatch = await newEndpoint(s, ['order.created', 'app.scopes_changed']);
      const sibling = await newApp(t, s.tenantId);
      const siblingWatch = await newEndpoint(s, ['app.scopes_changed'], await tokenFor(t, sibling));
      const foreign = await newEndpoint(other, ['order.created']);
      const order = await createOrder(s);
      await t.app
        .get(AppsService)
        .setScopes(TEST_ADMIN, sibling.clientId, 'orders:read webhooks:read');
      await t.http
        .post(`/v1/orders/${order.id}/status`)
        .set(auth(s.token))
        .send({ status: 'paid' });
      const [changed] = await hooksAt(statusOnly.path, 1);
      expect(verify(statusOnly.secret, changed)).toMatchObject({ type: 'order.status_changed' });
      await hooksAt(siblingWatch.path, 1);
      await hooksAt(adminWatch.path, 1);
      // Everything above was dispatched; the feed's position is past all of it.
      await dispatchedAll();
      expect(receiver.at(adminWatch.path).map((h) => verify(adminWatch.secret, h).type)).toEqual([
        'order.created',
      ]);
      expect(
        receiver.at(siblingWatch.path).map((h) => verify(siblingWatch.secret, h).type),
      ).toEqual(['app.scopes_changed']);
      expect(receiver.at(foreign.path)).toEqual([]);
      expect(receiver.at(statusOnly.path)).toHaveLength(1);
    });

    it('deliveries need an active app entitled to the type (webhooks:write alone reads nothing)', async () => {
      const s = await newShop();
      const hooksOnly = await newApp(t, s.tenantId, ['webhooks:write', 'webhooks:read']);
      const watching = await newEndpoint(s, ['order.created'], await tokenFor(t, hooksOnly));
      const entitled = await newApp(t, s.tenantId, ['webhooks:write', 'orders:read']);
      const paused = await newEndpoint(s, ['order.created'], await tokenFor(t, entitled));
      const control = await newEndpoint(s, ['order.created']);
      await createOrder(s);
      await hooksAt(control.path, 1);
      await t.app.get(AppsService).setActive(TEST_ADMIN, entitled.clientId, false);
      await createOrder(s);
      await hooksAt(control.path, 2);
      // Dispatched past both orders: neither the unentitled app nor the inactive one got any.
      await dispatchedAll();
      expect(receiver.at(watching.path)).toEqual([]);
      expect(receiver.at(paused.path)).toHaveLength(1);
      await t.app
        .get(AppsService)
        .setScopes(TEST_ADMIN, hooksOnly.clientId, 'webhooks:write orders:read');
      await createOrder(s);
      await hooksAt(watching.path, 1);
    });

    it('an endpoint failing for 5 days is disabled, with an endpoint.disabled event', async () => {
      const s = await newShop();
      const endpoint = await newEndpoint(s, ['order.created']);
      const watcher = await newEndpoint(s, ['endpoint.disabled']);
      // One failure, then a quiet week: a new failure starts a new streak, nothing is disabled.
      await t.dataSource.query(
        `UPDATE webhook_endpoints SET failing_since = now() - interval '7 days',
           last_failure_at = now() - interval '7 days' WHERE id = $1`,
        [endpoint.id],
      );
      const quiet = receiver.respond;
      receiver.respond = (hook) => (hook.path === endpoint.path ? 500 : quiet(hook));
      try {
        await createOrder(s);
        await hooksAt(endpoint.path, 1);
        // Recorded (the status code comes with the outcome; attempts counts it when sent).
        await within(
          5000,
          async () => (await deliveries(s, endpoint)).data[0]?.last_status_code === 500,
        );
      } finally {
        receiver.respond = quiet;
      }
      const [fresh] = await t.dataSource.query<Array<{ active: boolean; recent: boolean }>>(
        `SELECT active, failing_since > now() - interval '1 minute' AS recent FROM webhook_endpoints WHERE id = $1`,
        [endpoint.id],
      );
      expect(fresh).toEqual({ active: true, recent: true });
      await t.dataSource.query(`DELETE FROM webhook_deliveries WHERE endpoint_id = $1`, [
        endpoint.id,
      ]);
      // Failing without a break for over 5 days: the next failure disables it.
      await t.dataSource.query(
        `UPDATE webhook_endpoints SET failing_since = now() - interval '5 days 1 minute',
           last_failure_at = now() - interval '1 hour' WHERE id = $1`,
        [endpoint.id],
      );
      const failing = receiver.respond;
      receiver.respond = (hook) => (hook.path === endpoint.path ? 503 : failing(hook));
      try {
        await createOrder(s);
        const [notice] = await hooksAt(watcher.path, 1, 10_000);
        expect(verify(watcher.secret, notice)).toMatchObject({
          type: 'endpoint.disabled',
          data: { object: { id: endpoint.id, active: false } },
        });
      } finally {
        receiver.respond = failing;
      }
      const shown = await t.http.get(`${ENDPOINTS}/${endpoint.id}`).set(auth(s.token));
      expect(shown.body.active).toBe(false);
      // Resuming clears the streak; new events are delivered again.
      await t.http.patch(`${ENDPOINTS}/${endpoint.id}`).set(auth(s.token)).send({ active: true });
      const [resumed] = await t.dataSource.query<Array<{ failing_since: Date | null }>>(
        'SELECT failing_since FROM webhook_endpoints WHERE id = $1',
        [endpoint.id],
      );
      expect(resumed.failing_since).toBeNull();
      const seen = receiver.at(endpoint.path).length;
      await createOrder(s);
      await hooksAt(endpoint.path, seen + 1);
      await within(
        5000,
        async () => (await deliveries(s, endpoint)).data[0]?.state === 'succeeded',
      );
    });

    it('a receiver that hangs never slows the request that made the change', async () => {
      const s = await newShop();
      const endpoint = await newEndpoint(s, ['order.created']);
      let release!: () => void;
      const held = new Promise<number>((resolve) => (release = () => resolve(200)));
      const normal = receiver.respond;
      receiver.respond = (hook) => (hook.path === endpoint.path ? held : normal(hook));
      try {
        await createOrder(s);
        await hooksAt(endpoint.path, 1);
        // The first delivery is in flight and unanswered; orders are still created at once.
        const started = performance.now();
        for (let i = 0; i < 5; i++) await createOrder(s);
        expect(performance.now() - started).toBeLessThan(2000);
      } finally {
        receiver.respond = normal;
        release();
      }
      await hooksAt(endpoint.path, 6);
    });
  });

  describe('the address guard refuses before any connection', () => {
    it('http and private addresses are refused at creation unless configured', async () => {
      const strict = await createTestApp();
      try {
        const tenant = await newTenant(strict);
        const token = await tokenFor(strict, await newApp(strict, tenant.id));
        for (const url of [
          receiver.url('/strict'),
          'https://127.0.0.1/x',
          'https://10.0.0.1/x',
          'https://169.254.169.254/latest/meta-data/',
          'https://[::1]/x',
          'https://[fd00:ec2::254]/x',
          'https://localhost/x',
        ]) {
          const res = await strict.http
            .post(ENDPOINTS)
            .set(auth(token))
            .send({ url, event_types: ['order.created'] });
          expect({ url, status: res.status, field: res.body.details?.[0]?.field }).toEqual({
            url,
            status: 400,
            field: 'url',
          });
        }
        expect(receiver.at('/strict')).toEqual([]);

        // A local receiver, as a developer tries it: told which settings accept it.
        const local = await strict.http
          .post(ENDPOINTS)
          .set(auth(token))
          .send({ url: receiver.url('/strict'), event_types: ['order.created'] });
        const allowBoth =
          ' (a server started with WEBHOOK_ALLOW_HTTP=true and ' +
          'WEBHOOK_ALLOW_PRIVATE_NETWORKS=true accepts it: for development only)';
        expect(local.body.error_description).toBe(`url must use https${allowBoth}`);
        expect(local.body.details).toEqual([
          { field: 'url', message: `must use https${allowBoth}` },
        ]);
        const loopback = await strict.http
          .post(ENDPOINTS)
          .set(auth(token))
          .send({ url: 'https://127.0.0.1/x', event_types: ['order.created'] });
        expect(loopback.body.error_description).toBe(
          'url 127.0.0.1 is not a public address (a server started with ' +
            'WEBHOOK_ALLOW_PRIVATE_NETWORKS=true accepts it: for development only)',
        );
      } finally {
        await strict.close();
      }
    });

    it('a delivery to a host that resolves to a private address is refused, nothing is sent', async () => {
      const before = receiver.received.length;
      const limits = { allowHttp: true, allowPrivateNetworks: false, timeoutMs: 2000 };
      const byName = await postWebhook(
        receiver.url('/x').replace('127.0.0.1', 'localhost'),
        {},
        '{}',
        limits,
      );
      const byAddress = await postWebhook(receiver.url('/x'), {}, '{}', limits);
      expect(byName).toEqual({
        ok: false,
        statusCode: null,
        error: expect.stringMatching(/^refused: localhost resolves to/),
      });
      expect(byAddress).toEqual({
        ok: false,
        statusCode: null,
        error: 'refused: 127.0.0.1 is not a public address',
      });
      expect(receiver.received.length).toBe(before);
    });
  });
});
