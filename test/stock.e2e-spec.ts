import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from './support/eventually.js';
import { feedPage, settleFeed, type FeedEvent } from './support/feed.js';
import { newApp, newProduct, newTenant, tokenFor } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

interface Line {
  id: number;
  product_id: number | null;
  quantity: number;
}

interface Order {
  id: number;
  status: string;
  items: Line[];
}

/** CONTRACT 3.8 (stock), with its parts in 3.7 (imports) and 3.10 (cancel, refunds). */
describe('stock', () => {
  let t: TestApp;
  let token: string;
  let tenantId: number;

  beforeAll(async () => {
    t = await createTestApp({ WORKER_CONCURRENCY: '2' });
    tenantId = (await newTenant(t, 'EUR')).id;
    token = await tokenFor(t, await newApp(t, tenantId));
  });
  afterAll(() => t.close());

  const bearer = () => ({ authorization: `Bearer ${token}` });
  const tracked = (available: number, price = 1000) =>
    newProduct(t, tenantId, price, undefined, available);
  const available = async (id: number) =>
    (await t.http.get(`/v1/products/${id}`).set(bearer())).body.inventory.available as number;
  const version = async (id: number) =>
    (await t.http.get(`/v1/products/${id}`).set(bearer())).body.version as number;

  const orderBody = (items: Array<[number, number]>) => ({
    customer: { name: 'Ada', email: 'ada@example.com' },
    shipping_address: { country: 'TR', city: 'Istanbul', address: 'Moda 1' },
    items: items.map(([product_id, quantity]) => ({ product_id, quantity })),
  });
  const order = (items: Array<[number, number]>) =>
    t.http.post('/v1/orders').set(bearer()).send(orderBody(items));

  async function placed(items: Array<[number, number]>): Promise<Order> {
    const res = await order(items);
    expect(res.status).toBe(201);
    return res.body as Order;
  }

  async function inventoryEvents(productId: number): Promise<FeedEvent[]> {
    await settleFeed(t);
    const page = await feedPage(t, token, { types: 'product.inventory_changed', limit: 500 });
    return page.data.filter((e) => e.data.object.id === productId);
  }

  it('an order takes the stock of its tracked products, one event per product', async () => {
    const mug = await tracked(5);
    const cap = await tracked(3);
    const created = await placed([
      [mug, 2],
      [cap, 1],
      [mug, 1],
    ]);
    expect([await available(mug), await available(cap)]).toEqual([2, 2]);
    expect([await version(mug), await version(cap)]).toEqual([2, 2]);
    const [event] = await inventoryEvents(mug);
    expect(event.data).toEqual({
      object: expect.objectContaining({ id: mug, inventory: { tracked: true, available: 2 } }),
      previous_available: 5,
      reason: 'order',
      order_id: created.id,
    });
    expect(await inventoryEvents(cap)).toHaveLength(1);
    // The order's own timeline holds the order's events only.
    const timeline = await t.http.get(`/v1/orders/${created.id}/events`).set(bearer());
    expect(timeline.body.data.map((e: { type: string }) => e.type)).toEqual(['order.created']);
  });

  it('an untracked product is never short, and its stock is left alone', async () => {
    const plain = await newProduct(t, tenantId, 500);
    await placed([[plain, 10_000]]);
    const product = (await t.http.get(`/v1/products/${plain}`).set(bearer())).body;
    expect(product).toMatchObject({ inventory: { tracked: false, available: 0 }, version: 1 });
  });

  it('422 insufficient_stock names each short line; nothing is written, the key stays usable', async () => {
    const mug = await tracked(2);
    const cap = await tracked(10);
    const before = await t.http.get('/v1/orders?limit=1').set(bearer());
    await settleFeed(t);
    const feedBefore = await feedPage(t, token, { limit: 500 });
    const key = `stock-${mug}`;
    const items: Array<[number, number]> = [
      [cap, 4],
      [mug, 2],
      [mug, 1],
    ];
    const refused = await t.http
      .post('/v1/orders')
      .set(bearer())
      .set('idempotency-key', key)
      .send(orderBody(items));
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      error: 'insufficient_stock',
      error_description: expect.any(String),
      details: [1, 2].map((index) => ({
        field: `items[${index}].quantity`,
        message: expect.any(String),
        product_id: mug,
        requested: 3,
        available: 2,
      })),
    });
    // No order, no counter, no event, no stock taken (cap was not short), no idempotency record.
    expect([await available(mug), await available(cap)]).toEqual([2, 10]);
    expect([await version(mug), await version(cap)]).toEqual([1, 1]);
    const after = await t.http.get('/v1/orders?limit=1').set(bearer());
    expect(after.body.meta.total).toBe(before.body.meta.total);
    await settleFeed(t);
    expect((await feedPage(t, token, { limit: 500 })).data).toEqual(feedBefore.data);
    const [{ keys }] = await t.dataSource.query(
      'SELECT count(*)::int AS keys FROM idempotency_keys WHERE tenant_id = $1 AND key = $2',
      [tenantId, key],
    );
    expect(keys).toBe(0);

    await t.http.post(`/v1/products/${mug}/inventory`).set(bearer()).send({ adjustment: 1 });
    const retried = await t.http
      .post('/v1/orders')
      .set(bearer())
      .set('idempotency-key', key)
      .send(orderBody(items));
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect([await available(mug), await available(cap)]).toEqual([0, 6]);
  });

  it('a cancel gives the stock back unless restock is false; so does /status cancelled', async () => {
    const mug = await tracked(10);
    const first = await placed([[mug, 3]]);
    const second = await placed([[mug, 2]]);
    const third = await placed([[mug, 1]]);
    expect(await available(mug)).toBe(4);
    const cancel = (id: number, body: object) =>
      t.http.post(`/v1/orders/${id}/cancel`).set(bearer()).send(body);
    expect((await cancel(first.id, { reason: 'customer' })).status).toBe(200);
    expect(await available(mug)).toBe(7);
    expect((await cancel(second.id, { reason: 'fraud', restock: false })).status).toBe(200);
    expect(await available(mug)).toBe(7);
    const viaStatus = await t.http
      .post(`/v1/orders/${third.id}/status`)
      .set(bearer())
      .send({ status: 'cancelled' });
    expect(viaStatus.status).toBe(200);
    expect(await available(mug)).toBe(8);
    const events = await inventoryEvents(mug);
    expect(events.map((e) => [e.data.reason, e.data.order_id, e.data.previous_available])).toEqual([
      ['order', first.id, 10],
      ['order', second.id, 7],
      ['order', third.id, 5],
      ['cancellation', first.id, 4],
      ['cancellation', third.id, 7],
    ]);
  });

  it('a refund with restock gives back its lines’ quantities; without, nothing', async () => {
    const mug = await tracked(10, 1000);
    const created = await placed([[mug, 5]]);
    await t.http.post(`/v1/orders/${created.id}/status`).set(bearer()).send({ status: 'paid' });
    const line = created.items[0].id;
    const refund = (body: object) =>
      t.http.post(`/v1/orders/${created.id}/refunds`).set(bearer()).send(body);
    expect((await refund({ items: [{ item_id: line, quantity: 1 }] })).status).toBe(201);
    expect(await available(mug)).toBe(5);
    const restocked = await refund({ items: [{ item_id: line, quantity: 2 }], restock: true });
    expect([restocked.status, restocked.body.restocked]).toEqual([201, true]);
    expect(await available(mug)).toBe(7);
    // An amount alone names no lines: nothing goes back.
    expect((await refund({ amount: 1, restock: true })).status).toBe(201);
    expect(await available(mug)).toBe(7);
    expect((await refund({ items: [{ item_id: line, quantity: 1 }], restock: true })).status).toBe(
      201,
    );
    expect(await available(mug)).toBe(8);
    const reasons = (await inventoryEvents(mug)).map((e) => [e.data.reason, e.data.order_id]);
    expect(reasons).toEqual([
      ['order', created.id],
      ['refund', created.id],
      ['refund', created.id],
    ]);
  });

  it('a line sold before its product tracked stock gives nothing back', async () => {
    const later = await newProduct(t, tenantId, 100);
    const created = await placed([[later, 2]]);
    await t.http.post(`/v1/products/${later}/inventory`).set(bearer()).send({ available: 5 });
    await t.http.post(`/v1/orders/${created.id}/cancel`).set(bearer()).send({ reason: 'other' });
    expect(await available(later)).toBe(5);
  });

  it('imports take stock below zero, by product_id else by sku; unknown lines take none', async () => {
    const byId = await tracked(1);
    const skuOf = async (id: number) =>
      (await t.http.get(`/v1/products/${id}`).set(bearer())).body.sku as string;
    const bySku = await tracked(0);
    const external = `EXT-${byId}`;
    const res = await t.http
      .post('/v1/marketplace/orders/import')
      .set(bearer())
      .send({
        marketplace: 'trendyol',
        external_order_id: external,
        customer: { name: 'Ada', email: 'ada@example.com' },
        shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
        items: [
          {
            sku: 'whatever',
            name: 'By id',
            quantity: 3,
            unit_price: 1,
            total: 3,
            product_id: byId,
          },
          { sku: await skuOf(bySku), name: 'By sku', quantity: 2, unit_price: 1, total: 2 },
          { sku: 'NOT-IN-CATALOG', name: 'Sticker', quantity: 5, unit_price: 1, total: 5 },
        ],
      });
    expect(res.status).toBe(202);
    const statusPath = `/v1/marketplace/orders/import/trendyol/${external}`;
    await within(10_000, async () => {
      const status = await t.http.get(statusPath).set(bearer());
      return status.body.status === 'imported';
    });
    expect([await available(byId), await available(bySku)]).toEqual([-2, -2]);
    const orderId = (await t.http.get(statusPath).set(bearer())).body.order_id as number;
    const [event] = await inventoryEvents(byId);
    expect(event.data).toMatchObject({
      reason: 'import',
      order_id: orderId,
      previous_available: 1,
    });
    const imported = (await t.http.get(`/v1/orders/${orderId}`).set(bearer())).body as Order;
    expect(imported.items.map((i) => i.product_id)).toEqual([byId, bySku, null]);
  });
});
