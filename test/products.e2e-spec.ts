import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, newProduct, newTenant, tokenFor } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

describe('GET /v1/products', () => {
  let t: TestApp;
  let token: string;
  const ids: number[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    const tenant = await newTenant(t, 'EUR');
    for (const price of [10, 1999, 0]) ids.push(await newProduct(t, tenant.id, price));
    token = await tokenFor(t, await newApp(t, tenant.id, ['products:read']));
  });
  afterAll(() => t.close());

  const get = (path: string) => t.http.get(path).set('authorization', `Bearer ${token}`);

  it('lists the catalog by id with exact prices in the tenant currency', async () => {
    const res = await get('/v1/products?limit=2');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        {
          id: ids[0],
          sku: expect.any(String),
          name: 'Test product',
          price: 0.1,
          currency: 'EUR',
          active: true,
        },
        {
          id: ids[1],
          sku: expect.any(String),
          name: 'Test product',
          price: 19.99,
          currency: 'EUR',
          active: true,
        },
      ],
      meta: { page: 1, limit: 2, total: 3, total_pages: 2 },
    });
    const last = await get('/v1/products?limit=2&page=2');
    expect(last.body.data.map((p: { price: number }) => p.price)).toEqual([0]);
    expect((await get('/v1/products?page=5')).body.data).toEqual([]);
  });

  it.each(['page=0', 'limit=0', 'limit=101', 'page=abc', 'limit=2.5'])(
    '%s → 400 validation_failed',
    async (query) => {
      const res = await get(`/v1/products?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
    },
  );

  it('GET /v1/products/{id}: 400 for a malformed id, 404 for an unknown one', async () => {
    expect((await get('/v1/products/x')).status).toBe(400);
    expect((await get('/v1/products/0')).status).toBe(400);
    const missing = await get('/v1/products/99999999');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: 'not_found',
      error_description: 'product 99999999 not found',
    });
  });
});
