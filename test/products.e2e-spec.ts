import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { feedPage, settleFeed, type FeedEvent } from './support/feed.js';
import { ProductsRepository } from '../src/products/products.repository.js';
import { ProductsService } from '../src/products/products.service.js';
import { newApp, newProduct, newTenant, TEST_ADMIN, tokenFor } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

interface Product {
  id: number;
  sku: string;
  name: string;
  price: number;
  currency: string;
  active: boolean;
  inventory: { tracked: boolean; available: number };
  version: number;
  created_at: string;
  updated_at: string;
}

/** CONTRACT 3.8: the catalog by API, read and written, with its events. */
describe('products', () => {
  let t: TestApp;
  let token: string;
  let readOnly: string;
  let otherToken: string;
  let tenantId: number;
  const ids: number[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    const tenant = await newTenant(t, 'EUR');
    tenantId = tenant.id;
    for (const price of [10, 1999, 0]) ids.push(await newProduct(t, tenant.id, price));
    token = await tokenFor(t, await newApp(t, tenant.id));
    readOnly = await tokenFor(t, await newApp(t, tenant.id, ['products:read']));
    const other = await newTenant(t, 'USD');
    otherToken = await tokenFor(t, await newApp(t, other.id));
  });
  afterAll(() => t.close());

  const get = (path: string, bearer = token) =>
    t.http.get(path).set('authorization', `Bearer ${bearer}`);
  const post = (path: string, body: object, bearer = token) =>
    t.http.post(path).set('authorization', `Bearer ${bearer}`).send(body);
  const patch = (path: string, body: object, bearer = token) =>
    t.http.patch(path).set('authorization', `Bearer ${bearer}`).send(body);

  let skuCounter = 0;
  const sku = () => `P-${Date.now().toString(36)}-${++skuCounter}`;

  async function create(body: object = {}): Promise<Product> {
    const res = await post('/v1/products', { sku: sku(), name: 'Mug', price: 12.5, ...body });
    expect(res.status).toBe(201);
    return res.body as Product;
  }

  async function eventsOfType(type: string): Promise<FeedEvent[]> {
    await settleFeed(t);
    return (await feedPage(t, token, { types: type, limit: 500 })).data;
  }

  describe('GET /v1/products', () => {
    it('lists the catalog by id with exact prices, stock, version and a cursor to go on', async () => {
      const res = await get('/v1/products?limit=2');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([
        {
          id: ids[0],
          sku: expect.any(String),
          name: 'Test product',
          price: 0.1,
          currency: 'EUR',
          active: true,
          inventory: { tracked: false, available: 0 },
          version: 1,
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
          updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
        },
        expect.objectContaining({ id: ids[1], price: 19.99 }),
      ]);
      expect(res.body.meta).toMatchObject({
        page: 1,
        limit: 2,
        total_pages: expect.any(Number),
        has_more: true,
        next_cursor: expect.any(String),
      });
      const last = await get('/v1/products?limit=2&page=2');
      expect(last.body.data[0]).toMatchObject({ id: ids[2], price: 0 });
      expect((await get('/v1/products?page=500')).body.data).toEqual([]);
    });

    it('walks by cursor: every product once, in id order; the cursor keeps its filters', async () => {
      await create({ active: false });
      const seen: number[] = [];
      const metaKeys: string[][] = [];
      let res = await get('/v1/products?limit=2');
      seen.push(...res.body.data.map((p: Product) => p.id));
      while (res.body.meta.next_cursor) {
        res = await get(
          `/v1/products?limit=2&cursor=${encodeURIComponent(res.body.meta.next_cursor)}`,
        );
        expect(res.status).toBe(200);
        metaKeys.push(Object.keys(res.body.meta).sort());
        seen.push(...res.body.data.map((p: Product) => p.id));
      }
      expect(new Set(metaKeys.map((k) => k.join()))).toEqual(
        new Set(['has_more,limit,next_cursor']),
      );
      const all = await get('/v1/products?limit=100');
      expect(seen).toEqual(all.body.data.map((p: Product) => p.id));
      expect(new Set(seen).size).toBe(all.body.meta.total);

      const active = await get('/v1/products?active=true&limit=1');
      expect(active.body.data.every((p: Product) => p.active)).toBe(true);
      const next = encodeURIComponent(active.body.meta.next_cursor);
      const rest = await get(`/v1/products?cursor=${next}&limit=100`);
      expect(rest.body.data.every((p: Product) => p.active)).toBe(true);
      expect(rest.body.data.length + 1).toBe(active.body.meta.total);
      for (const query of [`cursor=${next}&active=false`, `cursor=${next}&page=1`, 'cursor=abc']) {
        const refused = await get(`/v1/products?${query}`);
        expect({ query, status: refused.status, error: refused.body.error }).toEqual({
          query,
          status: 400,
          error: 'validation_failed',
        });
      }
    });

    it('filters by sku (exact), active and updated_after', async () => {
      const product = await create();
      const bySku = await get(`/v1/products?sku=${product.sku}`);
      expect(bySku.body.data.map((p: Product) => p.id)).toEqual([product.id]);
      expect((await get(`/v1/products?sku=${product.sku.toLowerCase()}`)).body.data).toEqual([]);
      const inactive = await get('/v1/products?active=false&limit=100');
      expect(inactive.body.data.length).toBeGreaterThan(0);
      expect(inactive.body.data.every((p: Product) => !p.active)).toBe(true);
      const since = await get(
        `/v1/products?updated_after=${encodeURIComponent(product.updated_at)}&limit=100`,
      );
      expect(since.body.data.map((p: Product) => p.id)).toContain(product.id);
      expect(since.body.data.map((p: Product) => p.id)).not.toContain(ids[0]);
    });

    it.each([
      'page=0',
      'limit=0',
      'limit=101',
      'page=abc',
      'limit=2.5',
      'active=yes',
      'updated_after=yesterday',
      'sku=',
    ])('%s → 400 validation_failed', async (query) => {
      const res = await get(`/v1/products?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
    });
  });

  describe('GET /v1/products/{id}', () => {
    it('ETag "<version>"; If-None-Match → 304 without a body; 400/404 as for orders', async () => {
      const res = await get(`/v1/products/${ids[1]}`);
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"1"');
      const cached = await get(`/v1/products/${ids[1]}`).set('if-none-match', '"1"');
      expect([cached.status, cached.text, cached.headers.etag]).toEqual([304, '', '"1"']);
      const malformed = await get(`/v1/products/${ids[1]}`).set('if-none-match', 'x');
      expect([malformed.status, malformed.body.error]).toEqual([400, 'validation_failed']);
      expect((await get('/v1/products/x')).status).toBe(400);
      expect((await get('/v1/products/0')).status).toBe(400);
      const missing = await get('/v1/products/99999999');
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({
        error: 'not_found',
        error_description: 'product 99999999 not found',
      });
      expect((await get(`/v1/products/${ids[1]}`, otherToken)).status).toBe(404);
    });
  });

  describe('POST /v1/products', () => {
    it('201 with Location, ETag and the product; product.created; a taken sku → 409 sku_taken', async () => {
      const taken = sku();
      const res = await post('/v1/products', {
        sku: taken,
        name: 'Mug, blue',
        price: 12.5,
        inventory: { tracked: true, available: 7 },
      });
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(`/v1/products/${res.body.id}`);
      expect(res.headers.etag).toBe('"1"');
      expect(res.body).toEqual({
        id: expect.any(Number),
        sku: taken,
        name: 'Mug, blue',
        price: 12.5,
        currency: 'EUR',
        active: true,
        inventory: { tracked: true, available: 7 },
        version: 1,
        created_at: expect.any(String),
        updated_at: res.body.created_at,
      });
      expect((await get(`/v1/products/${res.body.id}`)).body).toEqual(res.body);
      const created = await eventsOfType('product.created');
      expect(created.find((e) => e.data.object.id === res.body.id)?.data).toEqual({
        object: res.body,
      });

      const again = await post('/v1/products', { sku: taken, name: 'Other', price: 1 });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ error: 'sku_taken' });
      // The same sku in another tenant is another product.
      expect(
        (await post('/v1/products', { sku: taken, name: 'X', price: 1 }, otherToken)).status,
      ).toBe(201);
      // Without inventory: untracked.
      expect((await create()).inventory).toEqual({ tracked: false, available: 0 });
    });

    it.each([
      [{ sku: '', name: 'x', price: 1 }, 'sku'],
      [{ sku: 'has space', name: 'x', price: 1 }, 'sku'],
      [{ sku: 'x'.repeat(65), name: 'x', price: 1 }, 'sku'],
      [{ sku: 'OK-1', name: '', price: 1 }, 'name'],
      [{ sku: 'OK-1', name: 'x', price: 1.005 }, 'price'],
      [{ sku: 'OK-1', name: 'x', price: -1 }, 'price'],
      [{ sku: 'OK-1', name: 'x', price: '1' }, 'price'],
      [{ sku: 'OK-1', name: 'x', price: 1, active: null }, 'active'],
      [
        { sku: 'OK-1', name: 'x', price: 1, inventory: { tracked: true, available: -1 } },
        'inventory.available',
      ],
      [{ sku: 'OK-1', name: 'x', price: 1, inventory: { available: 1 } }, 'inventory.tracked'],
      [
        { sku: 'OK-1', name: 'x', price: 1, inventory: { tracked: false, available: 3 } },
        'inventory.available',
      ],
      [{ sku: 'OK-1', name: 'x', price: 1, version: 3 }, 'version'],
    ])('%j → 400 naming %s', async (body, field) => {
      const res = await post('/v1/products', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('replays with an Idempotency-Key; needs products:write', async () => {
      const body = { sku: sku(), name: 'Cap', price: 5 };
      const first = await post('/v1/products', body).set('idempotency-key', `k-${body.sku}`);
      const replay = await post('/v1/products', body).set('idempotency-key', `k-${body.sku}`);
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);
      expect(replay.headers.location).toBe(first.headers.location);
      const denied = await post('/v1/products', { sku: sku(), name: 'x', price: 1 }, readOnly);
      expect(denied.status).toBe(403);
      expect(denied.body.error).toBe('scope_denied');
    });
  });

  describe('PATCH /v1/products/{id}', () => {
    it('changes name, price and active; version + 1; product.updated names the fields', async () => {
      const product = await create();
      const res = await patch(`/v1/products/${product.id}`, { price: 9.99, active: false });
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"2"');
      expect(res.body).toMatchObject({ price: 9.99, active: false, version: 2, name: 'Mug' });
      expect(res.body.updated_at > product.updated_at).toBe(true);
      const updated = await eventsOfType('product.updated');
      expect(updated.find((e) => e.data.object.id === product.id)?.data).toEqual({
        object: res.body,
        changed: ['price', 'active'],
      });
      // Nothing changes: 200, the same version, no event.
      const same = await patch(`/v1/products/${product.id}`, { price: 9.99, name: 'Mug' });
      expect([same.status, same.body.version]).toEqual([200, 2]);
      const after = await eventsOfType('product.updated');
      expect(after.filter((e) => e.data.object.id === product.id)).toHaveLength(1);
    });

    it('If-Match: a stale version → 412 with the current ETag and version, nothing written', async () => {
      const product = await create();
      const stale = await patch(`/v1/products/${product.id}`, { name: 'New' }).set(
        'if-match',
        '"7"',
      );
      expect(stale.status).toBe(412);
      expect(stale.headers.etag).toBe('"1"');
      expect(stale.body).toMatchObject({ error: 'precondition_failed', current_version: 1 });
      expect((await get(`/v1/products/${product.id}`)).body.name).toBe('Mug');
      const fresh = await patch(`/v1/products/${product.id}`, { name: 'New' }).set(
        'if-match',
        '"1"',
      );
      expect([fresh.status, fresh.body.name]).toEqual([200, 'New']);
    });

    it('existing orders keep their prices', async () => {
      const product = await create();
      const order = await post('/v1/orders', {
        customer: { name: 'Ada', email: 'ada@example.com' },
        shipping_address: { country: 'TR', city: 'Istanbul', address: 'Moda 1' },
        items: [{ product_id: product.id, quantity: 2 }],
      });
      expect(order.status).toBe(201);
      await patch(`/v1/products/${product.id}`, { price: 99 });
      const read = await get(`/v1/orders/${order.body.id}`);
      expect(read.body.items[0]).toMatchObject({ unit_price: 12.5, total: 25 });
      expect(read.body.total).toBe(25);
    });

    it('400 for an unknown field or a bad value, 404 for a foreign product', async () => {
      const product = await create();
      for (const body of [
        { sku: 'X' },
        { price: -1 },
        { name: '' },
        { active: 'no' },
        { inventory: {} },
      ]) {
        const res = await patch(`/v1/products/${product.id}`, body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
      }
      const foreign = await patch(`/v1/products/${product.id}`, { name: 'x' }, otherToken);
      expect([foreign.status, foreign.body.error]).toEqual([404, 'not_found']);
    });
  });

  describe('POST /v1/products/{id}/inventory', () => {
    it('turns tracking on; adjustments and counts move available; product.inventory_changed', async () => {
      const product = await create();
      const received = await post(`/v1/products/${product.id}/inventory`, {
        adjustment: 10,
        reason: 'Delivery 42',
      });
      expect(received.status).toBe(200);
      expect(received.headers.etag).toBe('"2"');
      expect(received.body).toMatchObject({
        inventory: { tracked: true, available: 10 },
        version: 2,
      });
      const counted = await post(`/v1/products/${product.id}/inventory`, { available: 4 });
      expect(counted.body.inventory).toEqual({ tracked: true, available: 4 });
      const corrected = await post(`/v1/products/${product.id}/inventory`, { adjustment: -6 });
      expect(corrected.body.inventory).toEqual({ tracked: true, available: -2 });
      const events = (await eventsOfType('product.inventory_changed')).filter(
        (e) => e.data.object.id === product.id,
      );
      expect(events.map((e) => e.data)).toEqual([
        {
          object: received.body,
          previous_available: 0,
          reason: 'adjustment',
          order_id: null,
          note: 'Delivery 42',
        },
        {
          object: counted.body,
          previous_available: 10,
          reason: 'adjustment',
          order_id: null,
          note: null,
        },
        {
          object: corrected.body,
          previous_available: 4,
          reason: 'adjustment',
          order_id: null,
          note: null,
        },
      ]);
      // A count equal to what is there changes nothing.
      const same = await post(`/v1/products/${product.id}/inventory`, { adjustment: 0 });
      expect(same.body.version).toBe(corrected.body.version);
    });

    it.each([
      [{}],
      [{ adjustment: 1, available: 1 }],
      [{ available: -1 }],
      [{ adjustment: 1.5 }],
      [{ adjustment: 1_000_000_001 }],
      [{ available: '3' }],
      [{ adjustment: 1, reason: '' }],
      [{ adjustment: 1, tracked: false }],
    ])('%j → 400 validation_failed', async (body) => {
      const product = await create();
      const res = await post(`/v1/products/${product.id}/inventory`, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect((await get(`/v1/products/${product.id}`)).body.version).toBe(1);
    });

    it('an Idempotency-Key makes a retried delivery count once; If-Match; 404 for a foreign product', async () => {
      const product = await create();
      const path = `/v1/products/${product.id}/inventory`;
      const first = await post(path, { adjustment: 5 }).set('idempotency-key', `d-${product.id}`);
      const retry = await post(path, { adjustment: 5 }).set('idempotency-key', `d-${product.id}`);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect((await get(`/v1/products/${product.id}`)).body.inventory.available).toBe(5);
      const stale = await post(path, { available: 1 }).set('if-match', '"1"');
      expect([stale.status, stale.body.current_version]).toEqual([412, 2]);
      const foreign = await post(path, { adjustment: 1 }, otherToken);
      expect([foreign.status, foreign.body.error]).toEqual([404, 'not_found']);
      const denied = await post(path, { adjustment: 1 }, readOnly);
      expect(denied.status).toBe(403);
    });
  });

  it('a CLI import writes each change of a product as its event (created, updated, inventory)', async () => {
    const products = t.app.get(ProductsService);
    const [a, b] = [sku(), sku()];
    await products.importMany(TEST_ADMIN, tenantId, [{ sku: a, name: 'A', priceMinor: 100 }], {
      hasActiveColumn: false,
    });
    const result = await products.importMany(
      TEST_ADMIN,
      tenantId,
      [
        { sku: a, name: 'A', priceMinor: 150, stock: 8 },
        { sku: b, name: 'B', priceMinor: 200 },
      ],
      { hasActiveColumn: false },
    );
    expect(result).toEqual({ inserted: 1, updated: 1, unchanged: 0 });
    const unchanged = await products.importMany(
      TEST_ADMIN,
      tenantId,
      [{ sku: a, name: 'A', priceMinor: 150, stock: 8 }],
      { hasActiveColumn: false },
    );
    expect(unchanged).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
    await settleFeed(t);
    const events = (await feedPage(t, token, { limit: 500 })).data.filter((e) =>
      [a, b].includes(e.data.object.sku as string),
    );
    expect(
      events.map((e) => [
        e.type,
        e.data.object.sku,
        e.data.changed ?? e.data.previous_available ?? null,
      ]),
    ).toEqual([
      ['product.created', a, null],
      ['product.updated', a, ['price']],
      ['product.inventory_changed', a, 0],
      ['product.created', b, null],
    ]);
    const [, , inventory] = events;
    expect(inventory.data).toMatchObject({
      object: { version: 2, inventory: { tracked: true, available: 8 } },
      reason: 'adjustment',
      order_id: null,
    });
  });

  it('a CLI import meeting a sku created meanwhile by another writer is refused whole', async () => {
    const repository = t.app.get(ProductsRepository);
    const [mine, theirs] = [sku(), sku()];
    // Another writer creates `theirs` just after the import locked the file's products.
    const spy = vi.spyOn(repository, 'lockBySku').mockImplementationOnce(async (db, skus) => {
      const locked = await ProductsRepository.prototype.lockBySku.call(repository, db, skus);
      await t.dataSource.query(
        `INSERT INTO products (tenant_id, sku, name, price_minor) VALUES ($1, $2, 'Theirs', 100)`,
        [tenantId, theirs],
      );
      return locked;
    });
    try {
      const run = t.app.get(ProductsService).importMany(
        TEST_ADMIN,
        tenantId,
        [
          { sku: mine, name: 'Mine', priceMinor: 100 },
          { sku: theirs, name: 'Mine too', priceMinor: 200 },
        ],
        { hasActiveColumn: false },
      );
      await expect(run).rejects.toThrow(/created by another writer during the import/);
    } finally {
      spy.mockRestore();
    }
    expect((await get(`/v1/products?sku=${mine}`)).body.data).toEqual([]);
    expect((await get(`/v1/products?sku=${theirs}`)).body.data[0].name).toBe('Theirs');
  });

  it('is isolated per tenant in lists', async () => {
    const theirs = await get('/v1/products?limit=100', otherToken);
    const mine = new Set(ids);
    expect(theirs.body.data.some((p: Product) => mine.has(p.id))).toBe(false);
    expect(tenantId).toBeGreaterThan(0);
  });
});
