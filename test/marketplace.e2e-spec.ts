import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from './support/eventually.js';
import { newApp, newProduct, newTenant, tokenFor } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const IMPORT = '/v1/marketplace/orders/import';

describe('marketplace import', () => {
  let t: TestApp;
  let tenantId: number;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp({
      // The spec polls status resources with one token.
      API_RATE_LIMIT_PER_TOKEN: '100000',
      IMPORT_RETRY_LIMIT: '1',
      IMPORT_RETRY_DELAY_SECONDS: '1',
      WORKER_CONCURRENCY: '2',
    });
    tenantId = (await newTenant(t, 'TRY')).id;
    await newProduct(t, tenantId, 1999, 'MP-SKU-1');
    token = await tokenFor(t, await newApp(t, tenantId));
    // A real failure for one external id: the database refuses that order.
    await t.dataSource.query(`
      CREATE FUNCTION refuse_boom() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'warehouse system refused the order'; END $$ LANGUAGE plpgsql`);
    await t.dataSource.query(`
      CREATE TRIGGER refuse_boom BEFORE INSERT ON orders FOR EACH ROW
      WHEN (NEW.external_order_id = 'BOOM-1') EXECUTE FUNCTION refuse_boom()`);
  });
  afterAll(() => t.close());

  const externalId = () => `EXT-${randomBytes(4).toString('hex')}`;
  const payload = (overrides: Record<string, unknown> = {}) => ({
    marketplace: 'trendyol',
    external_order_id: externalId(),
    customer: { name: 'Ada', email: 'ada@example.com', phone: '+90 555' },
    shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
    items: [
      { sku: 'MP-SKU-1', name: 'Marketplace name', quantity: 3, unit_price: 19.99, total: 59.97 },
      {
        sku: 'NOT-IN-CATALOG',
        name: 'Sticker',
        quantity: 3,
        unit_price: 0.1,
        total: 0.3,
        product_id: 42,
      },
    ],
    ...overrides,
  });
  const post = (body: object, key?: string, bearer = token) => {
    const req = t.http.post(IMPORT).set('authorization', `Bearer ${bearer}`);
    return (key ? req.set('idempotency-key', key) : req).send(body);
  };
  const status = (marketplace: string, id: string, bearer = token) =>
    t.http
      .get(`${IMPORT}/${marketplace}/${encodeURIComponent(id)}`)
      .set('authorization', `Bearer ${bearer}`);
  const until = async (marketplace: string, id: string, wanted: string, ms = 10_000) => {
    await within(ms, async () => (await status(marketplace, id)).body.status === wanted);
    return (await status(marketplace, id)).body as Record<string, unknown>;
  };

  it('202 {status: queued, external_order_id} with Location, then the status moves to imported', async () => {
    const body = payload();
    const res = await post(body);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: 'queued', external_order_id: body.external_order_id });
    expect(res.headers.location).toBe(`${IMPORT}/trendyol/${body.external_order_id}`);

    const done = await until('trendyol', body.external_order_id, 'imported');
    expect(done).toEqual({
      status: 'imported',
      marketplace: 'trendyol',
      external_order_id: body.external_order_id,
      order_id: expect.any(Number),
      error: null,
      attempts: 1,
    });

    const order = await t.http
      .get(`/v1/orders/${String(done.order_id)}`)
      .set('authorization', `Bearer ${token}`);
    expect(order.body).toMatchObject({
      status: 'pending',
      currency: 'TRY',
      total: 60.27,
      source: 'marketplace',
      marketplace: 'trendyol',
      external_order_id: body.external_order_id,
      customer: { id: null, name: 'Ada', email: 'ada@example.com', phone: '+90 555' },
    });
    // Its one order.created event carries the Order as the API shows it.
    const events = await t.dataSource.query<Array<{ type: string; data: unknown }>>(
      `SELECT type, data FROM events WHERE tenant_id = $1 AND order_id = $2`,
      [tenantId, done.order_id],
    );
    expect(events).toEqual([{ type: 'order.created', data: { object: order.body } }]);
    const [catalogProduct] = await t.dataSource.query(
      `SELECT id FROM products WHERE tenant_id = $1 AND sku = 'MP-SKU-1'`,
      [tenantId],
    );
    expect(order.body.items).toEqual([
      {
        id: expect.any(Number),
        product_id: catalogProduct.id,
        quantity: 3,
        fulfilled_quantity: 0,
        refunded_quantity: 0,
        sku: 'MP-SKU-1',
        name: 'Marketplace name',
        unit_price: 19.99,
        total: 59.97,
      },
      {
        id: expect.any(Number),
        product_id: null,
        quantity: 3,
        fulfilled_quantity: 0,
        refunded_quantity: 0,
        sku: 'NOT-IN-CATALOG',
        name: 'Sticker',
        unit_price: 0.1,
        total: 0.3,
      },
    ]);
    const list = await t.http.get('/v1/orders').set('authorization', `Bearer ${token}`);
    expect(list.body.data.map((o: { id: number }) => o.id)).toContain(done.order_id);
  });

  it('the same (marketplace, external_order_id) again → 200 with the current state, and still one order', async () => {
    const body = payload();
    expect((await post(body)).status).toBe(202);
    const done = await until('trendyol', body.external_order_id, 'imported');
    const again = await post({ ...body, customer: { name: 'Changed', email: 'x@example.com' } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(done);
    expect(again.headers.location).toBe(`${IMPORT}/trendyol/${body.external_order_id}`);
    const orders: unknown[] = await t.dataSource.query(
      'SELECT 1 FROM orders WHERE tenant_id = $1 AND marketplace = $2 AND external_order_id = $3',
      [tenantId, 'trendyol', body.external_order_id],
    );
    expect(orders).toHaveLength(1);
  });

  it('Idempotency-Key on a repeat: the 200 is stored and replayed as it was, a whole JSON answer', async () => {
    const body = payload();
    expect((await post(body)).status).toBe(202);
    const repeat = await post(body, 'import-repeat-key');
    const again = await post(body, 'import-repeat-key');
    for (const res of [repeat, again]) {
      expect(res.status).toBe(200);
      expect(res.headers.location).toBe(`${IMPORT}/trendyol/${body.external_order_id}`);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
      expect(res.headers['transfer-encoding']).toBeUndefined();
    }
    expect(repeat.headers['idempotent-replayed']).toBeUndefined();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(repeat.body);
  });

  it('the same external id on another marketplace is another import', async () => {
    const body = payload();
    expect((await post(body)).status).toBe(202);
    expect((await post({ ...body, marketplace: 'hepsiburada' })).status).toBe(202);
  });

  it('Idempotency-Key: a retry replays the 202 with Idempotent-Replayed', async () => {
    const body = payload();
    const first = await post(body, 'import-key-1');
    const again = await post(body, 'import-key-1');
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await post(payload(), 'import-key-1')).status).toBe(422);
  });

  it('a failing import retries with backoff and ends failed with the reason', async () => {
    const body = payload({ external_order_id: 'BOOM-1' });
    expect((await post(body)).status).toBe(202);
    const failed = await until('trendyol', 'BOOM-1', 'failed', 15_000);
    expect(failed).toMatchObject({ status: 'failed', order_id: null, attempts: 2 });
    expect(failed.error).toContain('warehouse system refused the order');
    // One marketplace_import.failed, carrying the status document; no order.created.
    const events = await t.dataSource.query<Array<{ type: string; data: unknown }>>(
      `SELECT type, data FROM events
       WHERE tenant_id = $1 AND data -> 'object' ->> 'external_order_id' = 'BOOM-1'`,
      [tenantId],
    );
    expect(events).toEqual([{ type: 'marketplace_import.failed', data: { object: failed } }]);
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['marketplace with capitals', { marketplace: 'Trendyol' }, 'marketplace'],
    ['marketplace of 51 characters', { marketplace: 'a'.repeat(51) }, 'marketplace'],
    ['empty external_order_id', { external_order_id: '' }, 'external_order_id'],
    [
      'external_order_id of 101 characters',
      { external_order_id: 'x'.repeat(101) },
      'external_order_id',
    ],
    ['no items', { items: [] }, 'items'],
    [
      '101 items',
      {
        items: Array.from({ length: 101 }, () => ({
          sku: 'A',
          name: 'A',
          quantity: 1,
          unit_price: 1,
          total: 1,
        })),
      },
      'items',
    ],
    [
      'total ≠ unit_price × quantity',
      { items: [{ sku: 'A', name: 'A', quantity: 3, unit_price: 0.1, total: 0.31 }] },
      'items[0].total',
    ],
    [
      'unit_price with 3 decimals',
      { items: [{ sku: 'A', name: 'A', quantity: 1, unit_price: 1.005, total: 1.005 }] },
      'items[0].unit_price',
    ],
    [
      'negative unit_price',
      { items: [{ sku: 'A', name: 'A', quantity: 1, unit_price: -1, total: -1 }] },
      'items[0].unit_price',
    ],
    [
      'quantity 0',
      { items: [{ sku: 'A', name: 'A', quantity: 0, unit_price: 1, total: 0 }] },
      'items[0].quantity',
    ],
    [
      'sku missing',
      { items: [{ name: 'A', quantity: 1, unit_price: 1, total: 1 }] },
      'items[0].sku',
    ],
    ['customer email malformed', { customer: { name: 'A', email: 'nope' } }, 'customer.email'],
    [
      'shipping city missing',
      { shipping_address: { country: 'TR', address: 'A' } },
      'shipping_address.city',
    ],
    ['unknown property', { channel: 'x' }, 'channel'],
  ];

  it.each(invalid)(
    '%s → 400 validation_failed at once, nothing queued',
    async (_name, override, field) => {
      const body = payload(override);
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    },
  );

  it('an unknown import → 404; another tenant never sees it; scope marketplace:import is needed', async () => {
    expect((await status('trendyol', 'NOPE')).status).toBe(404);
    const body = payload();
    await post(body);
    const other = await newTenant(t);
    const otherToken = await tokenFor(t, await newApp(t, other.id));
    expect((await status('trendyol', body.external_order_id, otherToken)).status).toBe(404);
    const reader = await tokenFor(t, await newApp(t, tenantId, ['orders:read']));
    const denied = await post(payload(), undefined, reader);
    expect(denied.status).toBe(403);
    expect(denied.headers['www-authenticate']).toBe(
      'Bearer error="insufficient_scope", scope="marketplace:import"',
    );
  });
});
