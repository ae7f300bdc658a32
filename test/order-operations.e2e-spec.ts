import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderCountSql } from '../src/orders/order-list.sql.js';
import { feedPage, settleFeed } from './support/feed.js';
import { newApp, newProduct, newTenant, tokenFor } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

interface Shop {
  tenantId: number;
  token: string;
  products: number[];
}

interface Order {
  id: number;
  version: number;
  status: string;
  fulfillment_status: string;
  total: number;
  refunded_total: number;
  updated_at: string;
  items: Array<{
    id: number;
    quantity: number;
    fulfilled_quantity: number;
    refunded_quantity: number;
  }>;
  [key: string]: unknown;
}

/** CONTRACT 3.4 (versions, ETag, PATCH) and 3.10 (cancel, fulfillments, refunds). */
describe('order operations', () => {
  let t: TestApp;
  let shop: Shop;
  let other: Shop;

  async function newShop(): Promise<Shop> {
    const tenant = await newTenant(t);
    return {
      tenantId: tenant.id,
      token: await tokenFor(t, await newApp(t, tenant.id)),
      products: [await newProduct(t, tenant.id, 1000), await newProduct(t, tenant.id, 250)],
    };
  }

  const auth = (s: Shop) => ({ authorization: `Bearer ${s.token}` });

  /** An order of two lines: 2 × 10.00 and 3 × 2.50 (total 27.50). */
  async function place(s: Shop = shop): Promise<Order> {
    const res = await t.http
      .post('/v1/orders')
      .set(auth(s))
      .send({
        customer: { name: 'Ada', email: 'ada@example.com' },
        shipping_address: { country: 'TR', city: 'Istanbul', address: 'Moda 1' },
        items: [
          { product_id: s.products[0], quantity: 2 },
          { product_id: s.products[1], quantity: 3 },
        ],
      });
    expect(res.status).toBe(201);
    return res.body as Order;
  }

  async function paid(s: Shop = shop): Promise<Order> {
    const order = await place(s);
    const res = await t.http
      .post(`/v1/orders/${order.id}/status`)
      .set(auth(s))
      .send({ status: 'paid' });
    expect(res.status).toBe(200);
    return res.body as Order;
  }

  const read = async (id: number, s: Shop = shop) =>
    (await t.http.get(`/v1/orders/${id}`).set(auth(s))).body as Order;

  const eventsOf = async (id: number) =>
    (await t.http.get(`/v1/orders/${id}/events`).set(auth(shop))).body.data as Array<{
      type: string;
      data: Record<string, unknown>;
    }>;

  beforeAll(async () => {
    t = await createTestApp();
    shop = await newShop();
    other = await newShop();
  });
  afterAll(() => t.close());

  describe('the Order’s new fields, ETag and If-None-Match', () => {
    it('a new order: version 1, unfulfilled, nothing refunded, no note, tags or metadata; lines with ids', async () => {
      const order = await place();
      expect(order).toMatchObject({
        version: 1,
        fulfillment_status: 'unfulfilled',
        refunded_total: 0,
        cancellation: null,
        note: null,
        tags: [],
        metadata: {},
      });
      expect(order.items).toHaveLength(2);
      for (const item of order.items) {
        expect(item).toMatchObject({ fulfilled_quantity: 0, refunded_quantity: 0 });
        expect(Number.isSafeInteger(item.id)).toBe(true);
      }
      expect(new Set(order.items.map((i) => i.id)).size).toBe(2);
      expect(await read(order.id)).toEqual(order);
    });

    it('ETag "<version>" on create and read; If-None-Match answers 304 without a body', async () => {
      const created = await t.http
        .post('/v1/orders')
        .set(auth(shop))
        .send({
          customer: { name: 'Ada', email: 'ada@example.com' },
          shipping_address: { country: 'TR', city: 'Istanbul', address: 'Moda 1' },
          items: [{ product_id: shop.products[0], quantity: 1 }],
        });
      expect(created.headers.etag).toBe('"1"');
      const path = `/v1/orders/${created.body.id}`;
      const got = await t.http.get(path).set(auth(shop));
      expect(got.status).toBe(200);
      expect(got.headers.etag).toBe('"1"');
      for (const tag of ['"1"', 'W/"1"', '"7", "1"', '*']) {
        const res = await t.http.get(path).set(auth(shop)).set('if-none-match', tag);
        expect({ tag, status: res.status, body: res.text }).toEqual({ tag, status: 304, body: '' });
        expect(res.headers.etag).toBe('"1"');
        expect(res.headers['x-request-id']).toBeTruthy();
      }
      const stale = await t.http.get(path).set(auth(shop)).set('if-none-match', '"2"');
      expect(stale.status).toBe(200);
      expect(stale.body.id).toBe(created.body.id);
      const malformed = await t.http.get(path).set(auth(shop)).set('if-none-match', 'abc');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error).toBe('validation_failed');
      expect(malformed.headers.etag).toBeUndefined();
    });
  });

  describe('PATCH /v1/orders/{id}', () => {
    it('sets note, tags (a sorted set) and metadata; bumps version once; records order.updated', async () => {
      const order = await place();
      const res = await t.http
        .patch(`/v1/orders/${order.id}`)
        .set(auth(shop))
        .send({
          note: 'Gift wrap',
          tags: ['vip', 'Gift', 'VIP', 'b2b'],
          metadata: { erp_id: 'SO-1' },
        });
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"2"');
      expect(res.body).toMatchObject({
        version: 2,
        note: 'Gift wrap',
        tags: ['b2b', 'Gift', 'vip'],
        metadata: { erp_id: 'SO-1' },
      });
      expect(res.body.updated_at > order.updated_at).toBe(true);
      const updated = (await eventsOf(order.id)).filter((e) => e.type === 'order.updated');
      expect(updated).toHaveLength(1);
      expect(updated[0].data.changed).toEqual(['note', 'tags', 'metadata']);
      expect(updated[0].data.object).toEqual(res.body);
    });

    it('merges metadata as RFC 7396 with application/merge-patch+json and application/json alike', async () => {
      const order = await place();
      const path = `/v1/orders/${order.id}`;
      await t.http
        .patch(path)
        .set(auth(shop))
        .send({ metadata: { a: '1', b: '2' } });
      const merged = await t.http
        .patch(path)
        .set(auth(shop))
        .set('content-type', 'application/merge-patch+json')
        .send(JSON.stringify({ metadata: { b: null, c: '3' } }));
      expect(merged.status).toBe(200);
      expect(merged.body.metadata).toEqual({ a: '1', c: '3' });
      const cleared = await t.http.patch(path).set(auth(shop)).send({ metadata: null, tags: null });
      expect(cleared.body).toMatchObject({ metadata: {}, tags: [], version: 4 });
    });

    it('a PATCH that changes nothing answers 200 and writes nothing (no version, no event)', async () => {
      const order = await place();
      const path = `/v1/orders/${order.id}`;
      const first = await t.http
        .patch(path)
        .set(auth(shop))
        .send({ tags: ['a'] });
      for (const body of [{}, { tags: ['a', 'A'] }, { note: null }, { metadata: { gone: null } }]) {
        const res = await t.http.patch(path).set(auth(shop)).send(body);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(first.body);
        expect(res.headers.etag).toBe('"2"');
      }
      expect((await eventsOf(order.id)).filter((e) => e.type === 'order.updated')).toHaveLength(1);
    });

    it('400 for unknown fields and broken bounds, also after the merge; nothing written', async () => {
      const order = await place();
      const path = `/v1/orders/${order.id}`;
      const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, 'v']));
      expect((await t.http.patch(path).set(auth(shop)).send({ metadata: many })).status).toBe(200);
      const more = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`m${i}`, 'v']));
      for (const body of [
        { status: 'paid' },
        { note: 'x'.repeat(5001) },
        { tags: ['x'.repeat(41)] },
        { tags: [''] },
        { tags: Array.from({ length: 51 }, (_, i) => `t${i}`) },
        { tags: 'vip' },
        { metadata: { 'bad key': 'v' } },
        { metadata: { k: 1 } },
        { metadata: { k: 'x'.repeat(501) } },
        { metadata: more },
        { metadata: [] },
      ]) {
        const res = await t.http.patch(path).set(auth(shop)).send(body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
        expect(res.body.error).toBe('validation_failed');
      }
      expect((await read(order.id)).version).toBe(2);
    });

    it('If-Match: the current version or * writes; another answers 412 with the current version, writing nothing', async () => {
      const order = await place();
      const path = `/v1/orders/${order.id}`;
      const ok = await t.http
        .patch(path)
        .set(auth(shop))
        .set('if-match', '"1"')
        .send({ note: 'a' });
      expect(ok.status).toBe(200);
      const stale = await t.http
        .patch(path)
        .set(auth(shop))
        .set('if-match', '"1"')
        .send({ note: 'b' });
      expect(stale.status).toBe(412);
      expect(stale.body).toMatchObject({ error: 'precondition_failed', current_version: 2 });
      expect(stale.headers.etag).toBe('"2"');
      expect((await read(order.id)).note).toBe('a');
      const weak = await t.http
        .patch(path)
        .set(auth(shop))
        .set('if-match', 'W/"2"')
        .send({ note: 'c' });
      expect(weak.status).toBe(412);
      const any = await t.http.patch(path).set(auth(shop)).set('if-match', '*').send({ note: 'd' });
      expect(any.body).toMatchObject({ note: 'd', version: 3 });
      const listed = await t.http
        .patch(path)
        .set(auth(shop))
        .set('if-match', '"1", "3"')
        .send({ note: 'e' });
      expect(listed.body.version).toBe(4);
      const malformed = await t.http
        .patch(path)
        .set(auth(shop))
        .set('if-match', '3')
        .send({ note: 'f' });
      expect(malformed.status).toBe(400);
    });
  });

  describe('cancel', () => {
    it('a pending order: cancelled with its cancellation; an order.status_changed event', async () => {
      const order = await place();
      const res = await t.http
        .post(`/v1/orders/${order.id}/cancel`)
        .set(auth(shop))
        .send({ reason: 'customer', note: 'Wrong size' });
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"2"');
      expect(res.body).toMatchObject({
        status: 'cancelled',
        version: 2,
        cancellation: { reason: 'customer', note: 'Wrong size', cancelled_at: res.body.updated_at },
      });
      const events = await eventsOf(order.id);
      expect(events.map((e) => e.type)).toEqual(['order.created', 'order.status_changed']);
      expect(events[1].data).toMatchObject({ previous_status: 'pending', object: res.body });
    });

    it('409 once paid (refund it instead); 400 for a reason not in the list', async () => {
      const order = await paid();
      const res = await t.http
        .post(`/v1/orders/${order.id}/cancel`)
        .set(auth(shop))
        .send({ reason: 'other' });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('invalid_transition');
      const pending = await place();
      const bad = await t.http
        .post(`/v1/orders/${pending.id}/cancel`)
        .set(auth(shop))
        .send({ reason: 'bored' });
      expect(bad.status).toBe(400);
      expect((await read(pending.id)).status).toBe('pending');
    });

    it('/status cancelled is a cancel for reason other', async () => {
      const order = await place();
      const res = await t.http
        .post(`/v1/orders/${order.id}/status`)
        .set(auth(shop))
        .send({ status: 'cancelled' });
      expect(res.body.cancellation).toMatchObject({ reason: 'other', note: null });
    });
  });

  describe('fulfillments', () => {
    it('a partial fulfillment moves paid to preparing; the rest ships it (fulfilled, shipped)', async () => {
      const order = await paid();
      const [line1, line2] = order.items;
      const first = await t.http
        .post(`/v1/orders/${order.id}/fulfillments`)
        .set(auth(shop))
        .send({
          items: [{ item_id: line2.id, quantity: 1 }],
          tracking: { company: 'UPS', number: '1Z', url: 'https://ups.example/1Z' },
        });
      expect(first.status).toBe(201);
      expect(first.headers.location).toBe(`/v1/orders/${order.id}/fulfillments/${first.body.id}`);
      expect(first.body).toMatchObject({
        order_id: order.id,
        items: [{ item_id: line2.id, quantity: 1 }],
        tracking: { company: 'UPS', number: '1Z', url: 'https://ups.example/1Z' },
      });
      const afterFirst = await read(order.id);
      expect(afterFirst).toMatchObject({
        status: 'preparing',
        fulfillment_status: 'partial',
        version: 3,
      });
      expect(afterFirst.items.map((i) => i.fulfilled_quantity)).toEqual([0, 1]);

      const rest = await t.http
        .post(`/v1/orders/${order.id}/fulfillments`)
        .set(auth(shop))
        .send({});
      expect(rest.status).toBe(201);
      expect(rest.body.items).toEqual([
        { item_id: line1.id, quantity: 2 },
        { item_id: line2.id, quantity: 2 },
      ]);
      expect(rest.body.tracking).toBeNull();
      const shipped = await read(order.id);
      expect(shipped).toMatchObject({
        status: 'shipped',
        fulfillment_status: 'fulfilled',
        version: 4,
      });
      const list = await t.http.get(`/v1/orders/${order.id}/fulfillments`).set(auth(shop));
      expect(list.body.data.map((f: { id: number }) => f.id)).toEqual([
        first.body.id,
        rest.body.id,
      ]);
      const one = await t.http.get(first.headers.location).set(auth(shop));
      expect(one.body).toEqual(first.body);

      const types = (await eventsOf(order.id)).map((e) => e.type);
      expect(types).toEqual([
        'order.created',
        'order.status_changed',
        'fulfillment.created',
        'order.status_changed',
        'fulfillment.created',
        'order.status_changed',
      ]);
    });

    it('fulfilling a paid order at once: two status steps in one version, each event with its status', async () => {
      const order = await paid();
      const res = await t.http.post(`/v1/orders/${order.id}/fulfillments`).set(auth(shop)).send({});
      expect(res.status).toBe(201);
      const events = (await eventsOf(order.id)).slice(-3);
      expect(events.map((e) => e.type)).toEqual([
        'fulfillment.created',
        'order.status_changed',
        'order.status_changed',
      ]);
      expect(events[0].data.order).toMatchObject({ status: 'shipped', version: 3 });
      expect(events[1].data).toMatchObject({
        previous_status: 'paid',
        object: { status: 'preparing', version: 3 },
      });
      expect(events[2].data).toMatchObject({
        previous_status: 'preparing',
        object: { status: 'shipped', version: 3 },
      });
    });

    it('refusals: 409 unless paid or preparing, 422 beyond what is left, 400 for another order’s line', async () => {
      const pending = await place();
      const early = await t.http
        .post(`/v1/orders/${pending.id}/fulfillments`)
        .set(auth(shop))
        .send({});
      expect(early.status).toBe(409);
      expect(early.body.error).toBe('invalid_transition');

      const order = await paid();
      const foreign = await place();
      const tooMany = await t.http
        .post(`/v1/orders/${order.id}/fulfillments`)
        .set(auth(shop))
        .send({ items: [{ item_id: order.items[0].id, quantity: 3 }] });
      expect(tooMany.status).toBe(422);
      expect(tooMany.body).toMatchObject({
        error: 'exceeds_unfulfilled',
        details: [{ field: 'items[0].quantity' }],
      });
      const notOurs = await t.http
        .post(`/v1/orders/${order.id}/fulfillments`)
        .set(auth(shop))
        .send({ items: [{ item_id: foreign.items[0].id, quantity: 1 }] });
      expect(notOurs.status).toBe(400);
      expect(notOurs.body.details).toEqual([
        { field: 'items[0].item_id', message: expect.stringContaining('not a line of this order') },
      ]);
      for (const body of [
        { items: [] },
        { items: [{ item_id: order.items[0].id, quantity: 0 }] },
        { tracking: { company: 'UPS', number: '1', url: 'http://insecure.example/1' } },
        { tracking: { company: '', number: '1' } },
        { extra: true },
      ]) {
        const res = await t.http
          .post(`/v1/orders/${order.id}/fulfillments`)
          .set(auth(shop))
          .send(body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
      }
      expect(await read(order.id)).toMatchObject({ version: 2, fulfillment_status: 'unfulfilled' });
    });

    it('PATCH tracking replaces it, records fulfillment.updated and leaves the order’s version', async () => {
      const order = await paid();
      const created = await t.http
        .post(`/v1/orders/${order.id}/fulfillments`)
        .set(auth(shop))
        .send({});
      const path = `/v1/orders/${order.id}/fulfillments/${created.body.id}`;
      const res = await t.http
        .patch(path)
        .set(auth(shop))
        .send({ tracking: { company: 'DHL', number: 'JD01' } });
      expect(res.status).toBe(200);
      expect(res.body.tracking).toEqual({ company: 'DHL', number: 'JD01', url: null });
      expect(res.body.updated_at > res.body.created_at).toBe(true);
      expect((await read(order.id)).version).toBe(3);
      const last = (await eventsOf(order.id)).at(-1)!;
      expect(last).toMatchObject({
        type: 'fulfillment.updated',
        data: { object: res.body, order: { version: 3 } },
      });
      const unknown = await t.http
        .patch(`/v1/orders/${order.id}/fulfillments/999999999`)
        .set(auth(shop))
        .send({ tracking: null });
      expect(unknown.status).toBe(404);
    });

    it('/status shipped (from preparing) ships everything left, without tracking', async () => {
      const order = await paid();
      await t.http
        .post(`/v1/orders/${order.id}/status`)
        .set(auth(shop))
        .send({ status: 'preparing' });
      const res = await t.http
        .post(`/v1/orders/${order.id}/status`)
        .set(auth(shop))
        .send({ status: 'shipped' });
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"4"');
      expect(res.body).toMatchObject({
        status: 'shipped',
        fulfillment_status: 'fulfilled',
        version: 4,
      });
      const list = await t.http.get(`/v1/orders/${order.id}/fulfillments`).set(auth(shop));
      expect(list.body.data).toHaveLength(1);
      expect(list.body.data[0].tracking).toBeNull();
    });
  });

  describe('units refunded by line are no longer due to ship (3.10)', () => {
    const fulfill = (id: number, body: object) =>
      t.http.post(`/v1/orders/${id}/fulfillments`).set(auth(shop)).send(body);
    const refund = (id: number, body: object) =>
      t.http.post(`/v1/orders/${id}/refunds`).set(auth(shop)).send(body);
    const available = async (productId: number) =>
      (await t.http.get(`/v1/products/${productId}`).set(auth(shop))).body.inventory
        .available as number;

    it('restocked units do not ship with a fulfillment without items; the rest completes the order', async () => {
      const tracked = await newProduct(t, shop.tenantId, 400, undefined, 10);
      const created = await t.http
        .post('/v1/orders')
        .set(auth(shop))
        .send({
          customer: { name: 'Ada', email: 'ada@example.com' },
          shipping_address: { country: 'TR', city: 'Istanbul', address: 'Moda 1' },
          items: [
            { product_id: shop.products[0], quantity: 2 },
            { product_id: tracked, quantity: 3 },
          ],
        });
      expect(created.status).toBe(201);
      const order = created.body as Order;
      await t.http.post(`/v1/orders/${order.id}/status`).set(auth(shop)).send({ status: 'paid' });
      const [plain, stocked] = order.items;
      expect(await available(tracked)).toBe(7);

      const back = await refund(order.id, {
        items: [{ item_id: stocked.id, quantity: 2 }],
        restock: true,
      });
      expect(back.status).toBe(201);
      expect(await available(tracked)).toBe(9);
      expect(await read(order.id)).toMatchObject({ status: 'paid', fulfillment_status: 'partial' });

      const beyond = await fulfill(order.id, { items: [{ item_id: stocked.id, quantity: 2 }] });
      expect(beyond.status).toBe(422);
      expect(beyond.body).toMatchObject({
        error: 'exceeds_unfulfilled',
        details: [
          { field: 'items[0].quantity', message: `item ${stocked.id} has 1 left unfulfilled` },
        ],
      });

      const rest = await fulfill(order.id, {});
      expect(rest.status).toBe(201);
      expect(rest.body.items).toEqual([
        { item_id: plain.id, quantity: 2 },
        { item_id: stocked.id, quantity: 1 },
      ]);
      const after = await read(order.id);
      expect(after).toMatchObject({ status: 'shipped', fulfillment_status: 'fulfilled' });
      expect(after.items.map((i) => [i.fulfilled_quantity, i.refunded_quantity])).toEqual([
        [2, 0],
        [1, 2],
      ]);
      expect(await available(tracked)).toBe(9);
      const moves = (await eventsOf(order.id))
        .filter((e) => e.type === 'order.status_changed')
        .map((e) => (e.data.object as Order).status);
      expect(moves).toEqual(['paid', 'preparing', 'shipped']);

      const nothingLeft = await fulfill(order.id, {});
      expect(nothingLeft.status).toBe(409);
    });

    it('the fulfillment that ships what refunds left moves paid to shipped through preparing', async () => {
      const order = await paid();
      const [line1, line2] = order.items;
      await refund(order.id, { items: [{ item_id: line2.id, quantity: 3 }] });
      expect(await read(order.id)).toMatchObject({ fulfillment_status: 'partial' });
      const res = await fulfill(order.id, { items: [{ item_id: line1.id, quantity: 2 }] });
      expect(res.status).toBe(201);
      expect(await read(order.id)).toMatchObject({
        status: 'shipped',
        fulfillment_status: 'fulfilled',
      });
    });

    it('a refund by line of everything left to ship makes the order fulfilled and moves it on to shipped', async () => {
      const order = await paid();
      const [line1, line2] = order.items;
      await fulfill(order.id, { items: [{ item_id: line1.id, quantity: 2 }] });
      const res = await refund(order.id, { items: [{ item_id: line2.id, quantity: 3 }] });
      expect(res.status).toBe(201);
      expect(await read(order.id)).toMatchObject({
        status: 'shipped',
        fulfillment_status: 'fulfilled',
        version: 4,
      });
      const last = (await eventsOf(order.id)).slice(-2);
      expect(last.map((e) => e.type).sort()).toEqual(['order.status_changed', 'refund.created']);
      expect(last.find((e) => e.type === 'order.status_changed')).toMatchObject({
        data: { previous_status: 'preparing', object: { status: 'shipped' } },
      });
      const none = await fulfill(order.id, {});
      expect(none.status).toBe(409);
      expect(none.body.error).toBe('invalid_transition');
    });

    it('/status shipped ships only what refunds left, or moves the order on when nothing is', async () => {
      const partly = await paid();
      await refund(partly.id, { items: [{ item_id: partly.items[1].id, quantity: 1 }] });
      await t.http
        .post(`/v1/orders/${partly.id}/status`)
        .set(auth(shop))
        .send({ status: 'preparing' });
      const shipped = await t.http
        .post(`/v1/orders/${partly.id}/status`)
        .set(auth(shop))
        .send({ status: 'shipped' });
      expect(shipped.status).toBe(200);
      expect(shipped.body).toMatchObject({ status: 'shipped', fulfillment_status: 'fulfilled' });
      const list = await t.http.get(`/v1/orders/${partly.id}/fulfillments`).set(auth(shop));
      expect(list.body.data.map((f: { items: unknown }) => f.items)).toEqual([
        [
          { item_id: partly.items[0].id, quantity: 2 },
          { item_id: partly.items[1].id, quantity: 2 },
        ],
      ]);

      // A refund that leaves nothing to ship has moved the order on already.
      const done = await paid();
      await fulfill(done.id, { items: [{ item_id: done.items[0].id, quantity: 2 }] });
      await refund(done.id, { items: [{ item_id: done.items[1].id, quantity: 3 }] });
      const again = await t.http
        .post(`/v1/orders/${done.id}/status`)
        .set(auth(shop))
        .send({ status: 'shipped' });
      expect(again.status).toBe(409);
      const one = await t.http.get(`/v1/orders/${done.id}/fulfillments`).set(auth(shop));
      expect(one.body.data).toHaveLength(1);
    });
  });

  describe('refunds', () => {
    it('partial refunds by amount and by lines; the one that reaches the total makes it refunded', async () => {
      const order = await paid();
      const byAmount = await t.http
        .post(`/v1/orders/${order.id}/refunds`)
        .set(auth(shop))
        .send({ amount: 5.5, reason: 'late' });
      expect(byAmount.status).toBe(201);
      expect(byAmount.headers.location).toBe(`/v1/orders/${order.id}/refunds/${byAmount.body.id}`);
      expect(byAmount.body).toMatchObject({
        order_id: order.id,
        amount: 5.5,
        currency: 'USD',
        items: [],
        reason: 'late',
        restocked: false,
      });
      const byLines = await t.http
        .post(`/v1/orders/${order.id}/refunds`)
        .set(auth(shop))
        .send({ items: [{ item_id: order.items[1].id, quantity: 2 }], restock: true });
      expect(byLines.body).toMatchObject({ amount: 5, restocked: true, reason: null });
      expect(await read(order.id)).toMatchObject({
        refunded_total: 10.5,
        status: 'paid',
        version: 4,
      });

      const tooMuch = await t.http
        .post(`/v1/orders/${order.id}/refunds`)
        .set(auth(shop))
        .send({ amount: 17.01 });
      expect(tooMuch.status).toBe(422);
      expect(tooMuch.body.error).toBe('exceeds_refundable');
      const lineTooMuch = await t.http
        .post(`/v1/orders/${order.id}/refunds`)
        .set(auth(shop))
        .send({ items: [{ item_id: order.items[1].id, quantity: 2 }] });
      expect(lineTooMuch.status).toBe(422);

      const rest = await t.http
        .post(`/v1/orders/${order.id}/refunds`)
        .set(auth(shop))
        .send({ amount: 17 });
      expect(rest.status).toBe(201);
      const after = await read(order.id);
      expect(after).toMatchObject({ refunded_total: 27.5, status: 'refunded', version: 5 });
      const types = (await eventsOf(order.id)).slice(-2).map((e) => e.type);
      expect(types).toEqual(['refund.created', 'order.status_changed']);
      const list = await t.http.get(`/v1/orders/${order.id}/refunds`).set(auth(shop));
      expect(list.body.data.map((r: { amount: number }) => r.amount)).toEqual([5.5, 5, 17]);
      const closed = await t.http
        .post(`/v1/orders/${order.id}/refunds`)
        .set(auth(shop))
        .send({ amount: 1 });
      expect(closed.status).toBe(409);
    });

    it('an Idempotency-Key is scoped to the order: the same key on another order refunds that one', async () => {
      const [first, second] = [await paid(), await paid()];
      const refund = (id: number) =>
        t.http
          .post(`/v1/orders/${id}/refunds`)
          .set(auth(shop))
          .set('idempotency-key', 'same-key')
          .send({ amount: 1 });
      const a = await refund(first.id);
      const replay = await refund(first.id);
      const b = await refund(second.id);
      expect([a.status, replay.status, b.status]).toEqual([201, 201, 201]);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(a.body);
      expect(b.headers['idempotent-replayed']).toBeUndefined();
      expect(b.body.order_id).toBe(second.id);
      expect((await read(second.id)).refunded_total).toBe(1);
    });

    it('null for an optional field is refused with 400, never taken as absent', async () => {
      const order = await paid();
      const answers = await Promise.all([
        t.http.post(`/v1/orders/${order.id}/refunds`).set(auth(shop)).send({ amount: null }),
        t.http.post(`/v1/orders/${order.id}/refunds`).set(auth(shop)).send({ items: null }),
        t.http
          .post(`/v1/orders/${order.id}/refunds`)
          .set(auth(shop))
          .send({ amount: 1, items: null }),
        t.http.post(`/v1/orders/${order.id}/fulfillments`).set(auth(shop)).send({ items: null }),
      ]);
      expect(answers.map((r) => [r.status, r.body.error])).toEqual(
        answers.map(() => [400, 'validation_failed']),
      );
      expect((await read(order.id)).version).toBe(2);
    });

    it('/status refunded moves an order of free lines without a refund to record', async () => {
      const free = await newProduct(t, shop.tenantId, 0);
      const created = await t.http
        .post('/v1/orders')
        .set(auth(shop))
        .send({
          customer: { name: 'Ada', email: 'ada@example.com' },
          shipping_address: { country: 'TR', city: 'Istanbul', address: 'Moda 1' },
          items: [{ product_id: free, quantity: 1 }],
        });
      const id = created.body.id as number;
      await t.http.post(`/v1/orders/${id}/status`).set(auth(shop)).send({ status: 'paid' });
      const res = await t.http
        .post(`/v1/orders/${id}/status`)
        .set(auth(shop))
        .send({ status: 'refunded' });
      expect(res.body).toMatchObject({ status: 'refunded', refunded_total: 0, version: 3 });
      const list = await t.http.get(`/v1/orders/${id}/refunds`).set(auth(shop));
      expect(list.body.data).toEqual([]);
    });

    it('refusals: 409 while pending, 400 without amount and items, 400 for a zero amount', async () => {
      const pending = await place();
      expect(
        (await t.http.post(`/v1/orders/${pending.id}/refunds`).set(auth(shop)).send({ amount: 1 }))
          .status,
      ).toBe(409);
      const order = await paid();
      for (const body of [{}, { amount: 0 }, { amount: 1.234 }, { reason: 'x' }, { amount: -1 }]) {
        const res = await t.http.post(`/v1/orders/${order.id}/refunds`).set(auth(shop)).send(body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
        expect(res.body.error).toBe('validation_failed');
      }
    });

    it('/status refunded refunds everything left, without restock', async () => {
      const order = await paid();
      await t.http.post(`/v1/orders/${order.id}/refunds`).set(auth(shop)).send({ amount: 7.5 });
      const res = await t.http
        .post(`/v1/orders/${order.id}/status`)
        .set(auth(shop))
        .send({ status: 'refunded' });
      expect(res.body).toMatchObject({ status: 'refunded', refunded_total: 27.5, version: 4 });
      const list = await t.http.get(`/v1/orders/${order.id}/refunds`).set(auth(shop));
      expect(list.body.data.at(-1)).toMatchObject({ amount: 20, restocked: false });
    });

    it('refund.created carries the refund and the order after it, in the feed', async () => {
      const order = await paid();
      const refund = await t.http
        .post(`/v1/orders/${order.id}/refunds`)
        .set(auth(shop))
        .send({ amount: 1 });
      await settleFeed(t);
      const page = await feedPage(t, shop.token, { types: 'refund.created', limit: 500 });
      const event = page.data.find((e) => (e.data.object as { id: number }).id === refund.body.id);
      expect(event?.data).toEqual({ object: refund.body, order: await read(order.id) });
    });
  });

  describe('list filters tag and metadata[KEY]=VALUE', () => {
    it('find the tenant’s orders by tag (any case) and by exact metadata, in page and cursor mode', async () => {
      const marker = `m${Date.now()}`;
      const tagged = await place();
      const both = await place();
      const mine = await place();
      const theirs = await place(other);
      const patch = (s: Shop, id: number, body: object) =>
        t.http.patch(`/v1/orders/${id}`).set(auth(s)).send(body);
      await patch(shop, tagged.id, { tags: [`${marker}-VIP`, `${marker}-Été`] });
      await patch(shop, both.id, { tags: [`${marker}-vip`], metadata: { erp: marker, x: 'y' } });
      await patch(shop, mine.id, { metadata: { erp: `${marker}-other` } });
      await patch(other, theirs.id, { tags: [`${marker}-vip`], metadata: { erp: marker } });

      const ids = async (query: string) => {
        const res = await t.http.get(`/v1/orders?${query}`).set(auth(shop));
        expect(res.status).toBe(200);
        return (res.body.data as Array<{ id: number }>).map((o) => o.id);
      };
      expect(await ids(`tag=${marker}-Vip`)).toEqual([both.id, tagged.id]);
      expect(await ids(`tag=${encodeURIComponent(`${marker}-ÉTÉ`)}`)).toEqual([tagged.id]);
      expect(await ids(`metadata[erp]=${marker}`)).toEqual([both.id]);
      expect(await ids(`metadata[erp]=${marker}&metadata[x]=y&tag=${marker}-vip`)).toEqual([
        both.id,
      ]);
      expect(await ids(`metadata[erp]=${marker}&metadata[x]=z`)).toEqual([]);
      const page = await t.http.get(`/v1/orders?tag=${marker}-vip&limit=1`).set(auth(shop));
      expect(page.body.meta).toMatchObject({ total: 2, has_more: true });
      const next = await t.http
        .get(`/v1/orders?cursor=${encodeURIComponent(page.body.meta.next_cursor)}&limit=1`)
        .set(auth(shop));
      expect(next.body.data.map((o: { id: number }) => o.id)).toEqual([tagged.id]);
      const changed = await t.http
        .get(`/v1/orders?cursor=${encodeURIComponent(page.body.meta.next_cursor)}&tag=other`)
        .set(auth(shop));
      expect(changed.status).toBe(400);
      expect(changed.body.details).toEqual([{ field: 'tag', message: expect.any(String) }]);
    });

    it('are answered by their GIN indexes in a large tenant (the expressions match the indexes)', async () => {
      const big = await newTenant(t);
      await t.dataSource.query(
        `INSERT INTO orders (tenant_id, currency, total_minor, customer_name, customer_email,
           shipping_country, shipping_city, shipping_address, tags, tag_keys, metadata)
         SELECT $1, 'USD', 100, 'n', 'e@x.io', 'TR', 'Istanbul', 'Street 1',
           ARRAY['t' || (g % 500)], ARRAY['t' || (g % 500)], jsonb_build_object('erp', 'SO-' || g)
         FROM generate_series(1, 20000) AS g`,
        [big.id],
      );
      await t.dataSource.query('ANALYZE orders');
      for (const [filters, index] of [
        [{ tag: 't7' }, 'orders_tag_keys_idx'],
        [{ metadata: { erp: 'SO-7' } }, 'orders_metadata_keys_idx'],
      ] as const) {
        const { text, params } = orderCountSql(
          { kind: 'tenant' },
          { sort: '-created_at', filters },
        );
        const plan: Array<{ 'QUERY PLAN': string }> = await t.dataSource.query(`EXPLAIN ${text}`, [
          big.id,
          ...params,
        ]);
        expect(plan.map((line) => line['QUERY PLAN']).join('\n')).toContain(index);
      }
    });

    it('400 for a malformed tag or metadata filter', async () => {
      for (const query of [
        'tag=',
        `tag=${'x'.repeat(41)}`,
        'metadata[bad key]=v',
        'metadata[]=v',
        `metadata[k]=${'v'.repeat(501)}`,
        Array.from({ length: 11 }, (_, i) => `metadata[k${i}]=v`).join('&'),
        'metadata=v',
        'metadata[k]=v&metadata=w',
        'metadata[k=v',
      ]) {
        const res = await t.http.get(`/v1/orders?${query}`).set(auth(shop));
        expect({ query, status: res.status, error: res.body.error }).toEqual({
          query,
          status: 400,
          error: 'validation_failed',
        });
      }
    });
  });

  describe('the order timeline', () => {
    it('lists events in the order they were written, whatever their transaction ids', async () => {
      const order = await place();
      await t.dataSource.query(
        `INSERT INTO events (tenant_id, txid, type, order_id, data)
         VALUES ($1, '100', 'order.updated', $2, '{"object": {"at": 100}}'),
                ($1, '99', 'order.updated', $2, '{"object": {"at": 99}}')`,
        [shop.tenantId, order.id],
      );
      const timeline = await eventsOf(order.id);
      // Written after the order's own event, in this order (text order of txid would put 100 first,
      // number order 99).
      expect(timeline.map((e) => e.data.object).slice(1)).toEqual([{ at: 100 }, { at: 99 }]);
    });
  });

  describe('customer sessions', () => {
    async function customer(email: string) {
      const password = 'analytical engine 1843';
      const registered = await t.http
        .post('/v1/customers/register')
        .set(auth(shop))
        .send({ name: 'Ada', email, password });
      expect(registered.status).toBe(201);
      const login = await t.http
        .post('/v1/customers/login')
        .set(auth(shop))
        .send({ email, password });
      expect(login.status).toBe(200);
      return { id: registered.body.id as number, session: login.body.token as string };
    }

    it('read their own orders’ fulfillments and refunds, 404 for anyone else’s, and change nothing', async () => {
      const suffix = Date.now().toString(36);
      const ada = await customer(`ada-${suffix}@example.com`);
      const bob = await customer(`bob-${suffix}@example.com`);
      const orderOf = async (who: { id: number }) => {
        const created = await t.http
          .post('/v1/orders')
          .set(auth(shop))
          .send({
            customer: { id: who.id, name: 'Ada', email: 'x@example.com' },
            shipping_address: { country: 'TR', city: 'Istanbul', address: 'Moda 1' },
            items: [{ product_id: shop.products[0], quantity: 2 }],
          });
        const id = created.body.id as number;
        await t.http.post(`/v1/orders/${id}/status`).set(auth(shop)).send({ status: 'paid' });
        const f = await t.http
          .post(`/v1/orders/${id}/fulfillments`)
          .set(auth(shop))
          .send({ items: [{ item_id: created.body.items[0].id, quantity: 1 }] });
        const r = await t.http.post(`/v1/orders/${id}/refunds`).set(auth(shop)).send({ amount: 1 });
        return { id, fulfillment: f.body as { id: number }, refund: r.body as { id: number } };
      };
      const mine = await orderOf(ada);
      const theirs = await orderOf(bob);
      const as = (path: string) => t.http.get(path).set('authorization', `Bearer ${ada.session}`);

      for (const base of [`/v1/customers/me/orders/${mine.id}`, `/v1/orders/${mine.id}`]) {
        const fulfillments = await as(`${base}/fulfillments`);
        expect(fulfillments.status).toBe(200);
        expect(fulfillments.body.data.map((f: { id: number }) => f.id)).toEqual([
          mine.fulfillment.id,
        ]);
        const refunds = await as(`${base}/refunds`);
        expect(refunds.body.data.map((r: { id: number }) => r.id)).toEqual([mine.refund.id]);
      }
      expect((await as(`/v1/orders/${mine.id}/fulfillments/${mine.fulfillment.id}`)).status).toBe(
        200,
      );
      expect((await as(`/v1/orders/${mine.id}/refunds/${mine.refund.id}`)).status).toBe(200);
      const own = await as(`/v1/customers/me/orders/${mine.id}`);
      expect(own.headers.etag).toBe(`"${own.body.version}"`);

      const foreign = await Promise.all([
        as(`/v1/customers/me/orders/${theirs.id}/fulfillments`),
        as(`/v1/customers/me/orders/${theirs.id}/refunds`),
        as(`/v1/orders/${theirs.id}/fulfillments`),
        as(`/v1/orders/${theirs.id}/refunds`),
        as(`/v1/orders/${theirs.id}/fulfillments/${theirs.fulfillment.id}`),
        as(`/v1/orders/${theirs.id}/refunds/${theirs.refund.id}`),
      ]);
      expect(foreign.map((r) => [r.status, r.body.error])).toEqual(
        foreign.map(() => [404, 'not_found']),
      );
      const write = await t.http
        .post(`/v1/orders/${mine.id}/refunds`)
        .set('authorization', `Bearer ${ada.session}`)
        .send({ amount: 1 });
      expect([write.status, write.body.error]).toEqual([403, 'scope_denied']);
    });

    it('filter their own order list by tag and metadata on both paths, never seeing another’s', async () => {
      const suffix = Date.now().toString(36);
      const ada = await customer(`ada-f-${suffix}@example.com`);
      const bob = await customer(`bob-f-${suffix}@example.com`);
      const orderOf = async (who: { id: number }, body: object) => {
        const created = await t.http
          .post('/v1/orders')
          .set(auth(shop))
          .send({
            customer: { id: who.id, name: 'Ada', email: 'x@example.com' },
            shipping_address: { country: 'TR', city: 'Istanbul', address: 'Moda 1' },
            items: [{ product_id: shop.products[0], quantity: 1 }],
          });
        const id = created.body.id as number;
        await t.http.patch(`/v1/orders/${id}`).set(auth(shop)).send(body);
        return id;
      };
      const labelled = { tags: [`gift-${suffix}`], metadata: { channel: suffix } };
      const adaLabelled = await orderOf(ada, labelled);
      await orderOf(ada, { tags: ['other'] });
      await orderOf(bob, labelled);
      for (const base of ['/v1/customers/me/orders', '/v1/orders']) {
        for (const query of [`tag=GIFT-${suffix}`, `metadata[channel]=${suffix}`]) {
          const res = await t.http
            .get(`${base}?${query}`)
            .set('authorization', `Bearer ${ada.session}`);
          expect({
            base,
            query,
            status: res.status,
            ids: res.body.data?.map((o: { id: number }) => o.id),
          }).toEqual({
            base,
            query,
            status: 200,
            ids: [adaLabelled],
          });
        }
      }
    });
  });

  describe('isolation', () => {
    it('another tenant’s order is 404 on every new route', async () => {
      const theirs = await paid(other);
      const base = `/v1/orders/${theirs.id}`;
      const requests = [
        t.http.patch(base).set(auth(shop)).send({ note: 'x' }),
        t.http.post(`${base}/cancel`).set(auth(shop)).send({ reason: 'other' }),
        t.http.post(`${base}/fulfillments`).set(auth(shop)).send({}),
        t.http.get(`${base}/fulfillments`).set(auth(shop)),
        t.http.get(`${base}/fulfillments/1`).set(auth(shop)),
        t.http.patch(`${base}/fulfillments/1`).set(auth(shop)).send({ tracking: null }),
        t.http.post(`${base}/refunds`).set(auth(shop)).send({ amount: 1 }),
        t.http.get(`${base}/refunds`).set(auth(shop)),
        t.http.get(`${base}/refunds/1`).set(auth(shop)),
      ];
      for (const [index, res] of (await Promise.all(requests)).entries()) {
        expect(res.status, `request ${index}`).toBe(404);
        expect(res.body.error).toBe('not_found');
      }
      expect(await read(theirs.id, other)).toMatchObject({ version: 2, note: null });
    });
  });
});
