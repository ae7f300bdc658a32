import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleFeed, type FeedPage } from './support/feed.js';
import { newShop, placeOrder, type Shop } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const REPEATED = 'must not be repeated (a list is one comma-separated value)';

/**
 * Query strings at the edge: a repeated parameter is refused on every route (the feed
 * served an event once per repetition), and integer bounds say which bound a value breaks.
 */
describe('query parameters at the edge', () => {
  let t: TestApp;
  let shop: Shop;
  let endpointId: number;

  beforeAll(async () => {
    t = await createTestApp({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    shop = await newShop(t);
    for (let i = 0; i < 3; i++) await placeOrder(t, shop);
    const endpoint = await t.http
      .post('/v1/webhook-endpoints')
      .set('authorization', `Bearer ${shop.token}`)
      // Loopback only: port 9 has no listener, and nothing here waits for a delivery.
      .send({ url: 'http://127.0.0.1:9/hooks', event_types: ['order.created'] });
    if (endpoint.status !== 201) throw new Error(`endpoint: ${endpoint.status} ${endpoint.text}`);
    endpointId = (endpoint.body as { id: number }).id;
    await settleFeed(t);
  });
  afterAll(() => t.close());

  const get = (path: string, token: string | undefined = shop.token) => {
    const req = t.http.get(path);
    if (token !== undefined) void req.set('authorization', `Bearer ${token}`);
    return req.then((r) => r);
  };

  describe('a repeated parameter → 400 validation_failed naming it, on every route', () => {
    it.each([
      ['/v1/events?types=order.created&types=order.created&types=order.created', 'types'],
      ['/v1/events?limit=1&limit=1', 'limit'],
      ['/v1/orders?status=paid&status=paid', 'status'],
      ['/v1/orders?limit=5&limit=50', 'limit'],
      ['/v1/orders?email=a@example.com&email=b@example.com', 'email'],
      ['/v1/products?page=1&page=2', 'page'],
      ['/v1/webhook-endpoints?limit=1&limit=2', 'limit'],
      ['/health/live?probe=1&probe=2', 'probe'],
    ])('%s', async (path, field) => {
      const res = await get(path);
      expect(res.status).toBe(400);
      expect(res.headers['x-request-id']).toBeTruthy();
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        error: 'validation_failed',
        error_description: `${field} ${REPEATED}`,
        details: [{ field, message: REPEATED }],
      });
    });

    it('names every repeated parameter, and refuses before authentication', async () => {
      const res = await get('/v1/orders?limit=1&page=1&limit=2&sort=created_at&page=1', undefined);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'validation_failed',
        error_description: `limit ${REPEATED}`,
        details: [
          { field: 'limit', message: REPEATED },
          { field: 'page', message: REPEATED },
        ],
      });
    });

    it('a comma-separated list serves each event once, even with an entry given twice', async () => {
      const res = await get('/v1/events?types=order.created,order.created,order.created');
      expect(res.status).toBe(200);
      const ids = (res.body as FeedPage).data.map((e) => e.id);
      expect(ids).toHaveLength(3);
      expect(new Set(ids).size).toBe(3);
      const orders = await get('/v1/orders?status=pending,pending');
      expect(orders.status).toBe(200);
      expect(orders.body.meta.total).toBe(3);
      expect(orders.body.data).toHaveLength(3);
    });
  });

  describe('integer parameters say which bound a value breaks', () => {
    const lists = () =>
      [
        ['/v1/orders', 100],
        ['/v1/products', 100],
        ['/v1/events', 500],
        [`/v1/webhook-endpoints/${endpointId}/deliveries`, 100],
      ] as const;

    it.each([
      ['-1', 'must not be less than 1'],
      ['0', 'must not be less than 1'],
      ['-0', 'must not be less than 1'],
      ['too-big', 'must not be greater than MAX'],
      ['abc', 'must be an integer from 1 to MAX'],
      ['2.5', 'must be an integer from 1 to MAX'],
      ['1e2', 'must be an integer from 1 to MAX'],
      ['', 'must be an integer from 1 to MAX'],
    ])('limit=%s → one detail: %s', async (value, expected) => {
      for (const [path, max] of lists()) {
        const limit = value === 'too-big' ? String(max + 1) : value;
        const message = expected.replace('MAX', String(max));
        const res = await get(`${path}?limit=${limit}`);
        expect({ path, status: res.status, body: res.body }).toEqual({
          path,
          status: 400,
          body: {
            error: 'validation_failed',
            error_description: `limit ${message}`,
            details: [{ field: 'limit', message }],
          },
        });
      }
    });

    it.each([
      ['/v1/orders?page=-1', 'page', 'must not be less than 1'],
      ['/v1/products?page=-3', 'page', 'must not be less than 1'],
      ['/v1/orders?page=x', 'page', 'must be an integer of at least 1'],
      ['/v1/orders?customer_id=-5', 'customer_id', 'must not be less than 1'],
      ['/v1/orders?customer_id=1.5', 'customer_id', 'must be an integer of at least 1'],
    ])('%s → %s %s', async (path, field, message) => {
      const res = await get(path);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'validation_failed',
        error_description: `${field} ${message}`,
        details: [{ field, message }],
      });
    });

    it('the bounds themselves pass', async () => {
      for (const [path, max] of lists()) {
        expect((await get(`${path}?limit=1`)).status).toBe(200);
        expect((await get(`${path}?limit=${max}`)).status).toBe(200);
      }
    });
  });
});
