import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppsService } from '../src/apps/apps.service.js';
import { Transactions } from '../src/database/transactions.js';
import { Maintenance } from '../src/maintenance/maintenance.service.js';
import { OrdersService } from '../src/orders/orders.service.js';
import { drainFeed, feedPage, settleFeed } from './support/feed.js';
import {
  newApp,
  newShop as newShopFor,
  orderBodyFor,
  placeOrder,
  TEST_ADMIN,
  tokenFor,
  type Shop,
} from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

describe('event log and change feed', () => {
  let t: TestApp;

  /**
   * A tenant whose feed starts empty: its product's `product.created` is the arrangement, not
   * a change under test (removed before any cursor of the tenant exists).
   */
  const newShop = async () => {
    const shop = await newShopFor(t, 1250);
    await t.dataSource.query('DELETE FROM events WHERE tenant_id = $1', [shop.tenantId]);
    return shop;
  };

  const orderBody = (s: Shop) => orderBodyFor(s);
  const createOrder = (s: Shop) => placeOrder(t, s);
  const get = (s: Shop, path: string, token = s.token) =>
    t.http.get(path).set('authorization', `Bearer ${token}`);
  const eventCount = async (tenantId: number): Promise<number> =>
    (
      await t.dataSource.query<Array<{ n: number }>>(
        'SELECT count(*)::int AS n FROM events WHERE tenant_id = $1',
        [tenantId],
      )
    )[0].n;

  beforeAll(async () => {
    t = await createTestApp({ API_RATE_LIMIT_PER_TOKEN: '100000' });
  });
  afterAll(() => t.close());

  describe('every change writes exactly one event, in its transaction', () => {
    it('order.created (API) carries the Order as answered', async () => {
      const s = await newShop();
      const order = await createOrder(s);
      const { events } = await drainFeed(t, s.token);
      expect(events).toHaveLength(1);
      expect(events[0]).toEqual({
        id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
        type: 'order.created',
        created_at: expect.any(String),
        data: { object: order },
      });
    });

    it('order.status_changed from the API and from the CLI, with previous_status', async () => {
      const s = await newShop();
      const order = await createOrder(s);
      const paid = await t.http
        .post(`/v1/orders/${order.id}/status`)
        .set('authorization', `Bearer ${s.token}`)
        .send({ status: 'paid' });
      expect(paid.status).toBe(200);
      const preparing = await t.app
        .get(OrdersService)
        .changeStatus({ kind: 'admin', actor: 'cli:test' }, s.tenantId, order.id, 'preparing');
      // A refused transition changes nothing and writes nothing.
      const refused = await t.http
        .post(`/v1/orders/${order.id}/status`)
        .set('authorization', `Bearer ${s.token}`)
        .send({ status: 'paid' });
      expect(refused.status).toBe(409);

      const { events } = await drainFeed(t, s.token);
      expect(events.map((e) => e.type)).toEqual([
        'order.created',
        'order.status_changed',
        'order.status_changed',
      ]);
      expect(events[1].data).toEqual({ object: paid.body, previous_status: 'pending' });
      expect(events[2].data).toEqual({ object: preparing, previous_status: 'paid' });

      const timeline = await get(s, `/v1/orders/${order.id}/events`);
      expect(timeline.status).toBe(200);
      expect(timeline.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(timeline.body).toEqual({
        data: events,
        next_cursor: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
        has_more: false,
      });
    });

    it('customer.created carries the Customer', async () => {
      const s = await newShop();
      const res = await t.http
        .post('/v1/customers/register')
        .set('authorization', `Bearer ${s.token}`)
        .send({ name: 'Grace', email: 'grace@example.com', password: 'correct horse battery' });
      expect(res.status).toBe(201);
      const taken = await t.http
        .post('/v1/customers/register')
        .set('authorization', `Bearer ${s.token}`)
        .send({ name: 'Grace', email: 'GRACE@example.com', password: 'correct horse battery' });
      expect(taken.status).toBe(409);
      const { events } = await drainFeed(t, s.token);
      expect(events).toEqual([
        expect.objectContaining({ type: 'customer.created', data: { object: res.body } }),
      ]);
    });

    it('app admin actions: one event each, seen by that app alone, never a secret', async () => {
      const s = await newShop();
      const other = await newApp(t, s.tenantId);
      const otherToken = await tokenFor(t, other);
      const apps = t.app.get(AppsService);
      const issued = await apps.issuePrivateToken(TEST_ADMIN, other.clientId, undefined, 3600);
      await apps.setScopes(TEST_ADMIN, other.clientId, 'orders:read events:read');
      const { clientSecret } = await apps.rotateSecret(TEST_ADMIN, other.clientId);
      await apps.setActive(TEST_ADMIN, other.clientId, false);
      await apps.setActive(TEST_ADMIN, other.clientId, false); // already inactive: no change, no event
      await apps.setActive(TEST_ADMIN, other.clientId, true);
      await apps.revokeToken(TEST_ADMIN, issued.tokenId);
      await apps.revokeToken(TEST_ADMIN, issued.tokenId); // already revoked: no second event

      // Its old token died with the changes; a fresh one reads its own events.
      expect((await get(s, '/v1/events', otherToken)).status).toBe(401);
      const fresh = await tokenFor(t, { ...other, clientSecret }, 'events:read');
      const own = (await drainFeed(t, fresh)).events;
      expect(own.map((e) => e.type)).toEqual([
        'app.scopes_changed',
        'app.secret_rotated',
        'app.deactivated',
        'app.activated',
        'token.revoked',
      ]);
      // The tenant's other app sees none of them.
      expect((await drainFeed(t, s.token)).events).toEqual([]);

      const rows = own;
      expect(rows[0].data.object).toMatchObject({
        client_id: other.clientId,
        approved_scopes: ['orders:read', 'events:read'],
        active: true,
      });
      expect(rows[2].data.object).toMatchObject({ active: false });
      expect(rows[4].data.object).toEqual({
        id: issued.tokenId,
        client_id: other.clientId,
        revoked_at: expect.any(String),
      });
      const text = JSON.stringify(rows);
      expect(text).not.toMatch(/secret_hash|client_secret|secretHash/);
    });

    it('a rolled-back change leaves no event', async () => {
      const s = await newShop();
      const before = await eventCount(s.tenantId);
      const orders = t.app.get(OrdersService);
      const ctx = {
        kind: 'app' as const,
        tenantId: s.tenantId,
        appId: s.client.app.id,
        clientId: s.client.clientId,
        scopes: new Set<string>(),
        tokenId: 'test',
        credentialsVersion: 1,
      };
      await expect(
        t.app.get(Transactions).run(async () => {
          await orders.create(ctx, orderBody(s));
          throw new Error('rolled back on purpose');
        }),
      ).rejects.toThrow('rolled back on purpose');
      const unknown = await t.http
        .post('/v1/orders')
        .set('authorization', `Bearer ${s.token}`)
        .send({ ...orderBody(s), items: [{ product_id: 999_999, quantity: 1 }] });
      expect(unknown.status).toBe(422);
      expect(await eventCount(s.tenantId)).toBe(before);
    });
  });

  describe('GET /v1/events', () => {
    it('pages with limit and next_cursor; has_more; an empty page keeps the cursor', async () => {
      const s = await newShop();
      for (let i = 0; i < 5; i++) await createOrder(s);
      await settleFeed(t);
      const first = await feedPage(t, s.token, { limit: 2 });
      expect(first.data).toHaveLength(2);
      expect(first.has_more).toBe(true);
      const second = await feedPage(t, s.token, { limit: 2, after: first.next_cursor });
      const third = await feedPage(t, s.token, { limit: 2, after: second.next_cursor });
      expect(third).toMatchObject({ has_more: false });
      expect(third.data).toHaveLength(1);
      const ids = [...first.data, ...second.data, ...third.data].map((e) => e.id);
      expect(new Set(ids).size).toBe(5);
      // Past the end the cursor still moves on (to the commit horizon), never back.
      const empty = await feedPage(t, s.token, { after: third.next_cursor });
      expect(empty).toMatchObject({ data: [], has_more: false });
      await createOrder(s);
      await settleFeed(t);
      expect((await feedPage(t, s.token, { after: third.next_cursor })).data).toHaveLength(1);
      expect((await feedPage(t, s.token, { after: empty.next_cursor })).data).toHaveLength(1);
    });

    it('types filters; unknown types, bad limits and foreign cursors are 400', async () => {
      const s = await newShop();
      const order = await createOrder(s);
      await t.http
        .post(`/v1/orders/${order.id}/status`)
        .set('authorization', `Bearer ${s.token}`)
        .send({ status: 'cancelled' });
      await settleFeed(t);
      const changed = await feedPage(t, s.token, { types: 'order.status_changed' });
      expect(changed.data.map((e) => e.type)).toEqual(['order.status_changed']);
      const both = await feedPage(t, s.token, { types: 'order.status_changed,order.created' });
      expect(both.data).toHaveLength(2);
      for (const query of [
        { types: 'order.deleted' },
        { types: 'order.created,' },
        { limit: 0 },
        { limit: 501 },
        { limit: '1.5' },
        { after: 'not-a-cursor' },
        { after: Buffer.from('e1.01.2').toString('base64url') },
      ]) {
        const res = await get(
          s,
          `/v1/events?${new URLSearchParams(query as unknown as Record<string, string>).toString()}`,
        );
        expect({ query, status: res.status, error: res.body.error }).toEqual({
          query,
          status: 400,
          error: 'validation_failed',
        });
      }
    });

    it('needs events:read; a customer token is refused; tenants never see each other', async () => {
      const s = await newShop();
      await createOrder(s);
      const other = await newShop();
      await createOrder(other);
      const [mine, theirs] = [await drainFeed(t, s.token), await drainFeed(t, other.token)];
      expect(mine.events).toHaveLength(1);
      expect(theirs.events).toHaveLength(1);
      expect(mine.events[0].id).not.toBe(theirs.events[0].id);
      // Another tenant's cursor is only a position: it shows nothing of theirs.
      expect((await feedPage(t, s.token, { after: theirs.cursor })).data).toEqual([]);

      const reader = await tokenFor(t, await newApp(t, s.tenantId, ['orders:read']));
      const denied = await get(s, '/v1/events', reader);
      expect(denied.status).toBe(403);
      expect(denied.body.error).toBe('scope_denied');
      expect(denied.headers['www-authenticate']).toContain('scope="events:read"');
      expect((await get(s, '/v1/events', 'garbage')).status).toBe(401);

      // A customer session is the wrong kind of token for the feed and for webhooks.
      const credentials = { email: 'feed-reader@example.com', password: 'correct horse battery' };
      await t.http
        .post('/v1/customers/register')
        .set('authorization', `Bearer ${s.token}`)
        .send({ name: 'Reader', ...credentials });
      const login = await t.http
        .post('/v1/customers/login')
        .set('authorization', `Bearer ${s.token}`)
        .send(credentials);
      const session = (login.body as { token: string }).token;
      for (const [path, scope] of [
        ['/v1/events', 'events:read'],
        ['/v1/webhook-endpoints', 'webhooks:read'],
      ]) {
        const refused = await get(s, path, session);
        expect({ path, status: refused.status, error: refused.body.error }).toEqual({
          path,
          status: 403,
          error: 'scope_denied',
        });
        expect(refused.headers['www-authenticate']).toContain(`scope="${scope}"`);
      }
    });

    it('410 cursor_expired once retention removed events after the cursor', async () => {
      const s = await newShop();
      await createOrder(s);
      const { cursor: start } = await drainFeed(t, s.token);
      await createOrder(s);
      await settleFeed(t);
      const old = await feedPage(t, s.token, { after: start });
      await t.dataSource.query(
        `UPDATE events SET created_at = now() - interval '31 days' WHERE tenant_id = $1`,
        [s.tenantId],
      );
      expect((await t.app.get(Maintenance).purgeExpired()).events).toBeGreaterThanOrEqual(2);
      const expired = await get(s, `/v1/events?after=${start}`);
      expect(expired.status).toBe(410);
      expect(expired.body).toMatchObject({ error: 'cursor_expired' });
      // A cursor at or past everything removed still works.
      expect((await feedPage(t, s.token, { after: old.next_cursor })).data).toEqual([]);
      expect((await feedPage(t, s.token)).data).toEqual([]);
    });

    it('a follower that saw nothing (types filter, empty start) is not expired by the purge of what it skipped', async () => {
      const s = await newShop();
      const start = await feedPage(t, s.token);
      expect(start.data).toEqual([]);
      await createOrder(s);
      const filtered = await drainFeed(t, s.token, start.next_cursor, {
        types: 'customer.created',
      });
      expect(filtered.events).toEqual([]);
      const unfiltered = await drainFeed(t, s.token, start.next_cursor);
      expect(unfiltered.events).toHaveLength(1);
      await t.dataSource.query(
        `UPDATE events SET created_at = now() - interval '31 days' WHERE tenant_id = $1`,
        [s.tenantId],
      );
      await t.app.get(Maintenance).purgeExpired();
      expect(
        (await feedPage(t, s.token, { after: filtered.cursor, types: 'customer.created' })).data,
      ).toEqual([]);
      expect((await feedPage(t, s.token, { after: unfiltered.cursor })).data).toEqual([]);
      expect((await get(s, `/v1/events?after=${start.next_cursor}`)).status).toBe(410);
    });
  });

  describe('GET /v1/orders/{id}/events', () => {
    it("404 for another tenant's or an unknown order; 400 for a bad id; orders:read needed", async () => {
      const s = await newShop();
      const other = await newShop();
      const foreign = await createOrder(other);
      expect((await get(s, `/v1/orders/${foreign.id}/events`)).status).toBe(404);
      expect((await get(s, '/v1/orders/99999999/events')).status).toBe(404);
      expect((await get(s, '/v1/orders/abc/events')).status).toBe(400);
      const writer = await tokenFor(t, await newApp(t, s.tenantId, ['orders:write']));
      expect((await get(s, `/v1/orders/${foreign.id}/events`, writer)).status).toBe(403);
    });
  });

  describe('under concurrent writers', () => {
    it('a follower sees every event once, in commit order, even one committed late', async () => {
      const s = await newShop();
      const orders = t.app.get(OrdersService);
      const firstOrder = await createOrder(s);
      await settleFeed(t);

      // A transaction that writes an event and stays open while others commit after it.
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let written!: () => void;
      const wroteEvent = new Promise<void>((resolve) => (written = resolve));
      const held = t.app.get(Transactions).run(async () => {
        const changed = await orders.changeStatus(
          { kind: 'admin', actor: 'cli:test' },
          s.tenantId,
          firstOrder.id,
          'paid',
        );
        written();
        await released;
        return changed;
      });
      await wroteEvent;

      // Writers commit meanwhile; each request's send and answer times bound its transaction.
      const timings = new Map<number, { sent: number; answered: number }>();
      const writer = async () => {
        for (let i = 0; i < 8; i++) {
          const sent = performance.now();
          const order = await createOrder(s);
          timings.set(order.id, { sent, answered: performance.now() });
        }
      };
      const seen: string[] = [];
      const events = new Map<string, { type: string; orderId: number }>();
      let cursor: string | undefined;
      const follow = async () => {
        const page = await feedPage(
          t,
          s.token,
          cursor ? { after: cursor, limit: 7 } : { limit: 7 },
        );
        for (const e of page.data) {
          seen.push(e.id);
          events.set(e.id, { type: e.type, orderId: e.data.object.id as number });
        }
        cursor = page.next_cursor;
        return page;
      };
      const state = { writing: true };
      const writers = Promise.all([writer(), writer(), writer(), writer()]).finally(
        () => (state.writing = false),
      );
      while (state.writing) await follow();
      await writers;
      // The held transaction still blocks everything after it: nothing newer was served.
      expect(seen.map((id) => events.get(id)!.type)).toEqual(['order.created']);
      release();
      await held;
      await settleFeed(t);
      while ((await follow()).has_more);

      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toHaveLength(2 + 32);
      const heldIndex = seen.findIndex((id) => events.get(id)!.type === 'order.status_changed');
      const [heldSeq] = await t.dataSource.query<Array<{ seq: number }>>(
        `SELECT seq FROM events WHERE tenant_id = $1 AND type = 'order.status_changed'`,
        [s.tenantId],
      );
      const [{ max }] = await t.dataSource.query<Array<{ max: number }>>(
        `SELECT max(seq)::int AS max FROM events WHERE tenant_id = $1`,
        [s.tenantId],
      );
      // The late commit had the smaller sequence number: serving by seq would have skipped it.
      expect(heldSeq.seq).toBeLessThan(max);
      expect(heldIndex).toBe(1);
      // Commit order: an order answered before another was sent comes first in the feed.
      const position = new Map(
        seen
          .map((id, i) => ({ ...events.get(id)!, i }))
          .filter((e) => e.type === 'order.created')
          .map((e) => [e.orderId, e.i]),
      );
      let pairs = 0;
      for (const [a, ta] of timings) {
        for (const [b, tb] of timings) {
          if (ta.answered >= tb.sent) continue;
          pairs++;
          expect(position.get(a)!).toBeLessThan(position.get(b)!);
        }
      }
      expect(pairs).toBeGreaterThan(100);
    });
  });
});
