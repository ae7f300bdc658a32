import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newShop, placeOrder, type Shop } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** JSON texts that are valid JSON but not an object. */
const NOT_OBJECTS = ['null', '[]', '[{}]', '7', '0', '"x"', '""', 'true', 'false'];

/** Section 4: a JSON body that is not an object where an object is expected → 400 validation_failed. */
describe('JSON bodies that are not objects', () => {
  let t: TestApp;
  let shop: Shop;
  let orderId: number;
  const auth = () => ({ authorization: `Bearer ${shop.token}` });

  beforeAll(async () => {
    t = await createTestApp();
    shop = await newShop(t);
    orderId = (await placeOrder(t, shop)).id;
  });
  afterAll(() => t.close());

  const send = (method: 'post' | 'patch', path: string, text: string, type = 'application/json') =>
    t.http[method](path).set(auth()).set('content-type', type).send(text);

  const routes = (): Array<[string, 'post' | 'patch', string, string?]> => [
    ['order create', 'post', '/v1/orders'],
    ['order PATCH', 'patch', `/v1/orders/${orderId}`],
    ['order PATCH (merge-patch)', 'patch', `/v1/orders/${orderId}`, 'application/merge-patch+json'],
    ['order status', 'post', `/v1/orders/${orderId}/status`],
    ['order cancel', 'post', `/v1/orders/${orderId}/cancel`],
    ['fulfillment', 'post', `/v1/orders/${orderId}/fulfillments`],
    ['refund', 'post', `/v1/orders/${orderId}/refunds`],
    ['product create', 'post', '/v1/products'],
    ['customer register', 'post', '/v1/customers/register'],
    ['customer login', 'post', '/v1/customers/login'],
    ['marketplace import', 'post', '/v1/marketplace/orders/import'],
    ['data export', 'post', '/v1/customers/data-exports'],
    ['webhook endpoint', 'post', '/v1/webhook-endpoints'],
  ];

  it('every route with a body answers 400 validation_failed for null, arrays, numbers, strings, booleans', async () => {
    for (const [name, method, path, type] of routes()) {
      for (const text of NOT_OBJECTS) {
        const res = await send(method, path, text, type);
        expect({ name, text, status: res.status, body: res.body }).toEqual({
          name,
          text,
          status: 400,
          body: {
            error: 'validation_failed',
            error_description: 'The body must be a JSON object',
            details: [{ field: 'body', message: 'must be a JSON object' }],
          },
        });
      }
    }
  });

  it('PATCH with null changes nothing and says so; the order is untouched', async () => {
    const res = await send('patch', `/v1/orders/${orderId}`, 'null');
    expect(res.status).toBe(400);
    const order = await t.http.get(`/v1/orders/${orderId}`).set(auth());
    expect(order.body).toMatchObject({ version: 1, status: 'pending' });
  });

  it('an object, even empty, is still judged field by field', async () => {
    const noop = await send('patch', `/v1/orders/${orderId}`, '{}');
    expect(noop.status).toBe(200);
    const missing = await send('post', `/v1/orders/${orderId}/status`, '{}');
    expect(missing.status).toBe(400);
    expect(missing.body.details[0].field).toBe('status');
  });

  it('the token endpoint keeps its own rules (OAuth error codes)', async () => {
    for (const text of ['null', '[]', '7', '"x"']) {
      const res = await t.http
        .post('/builders/oauth/token')
        .set('content-type', 'application/json')
        .send(text);
      expect({ text, status: res.status, error: res.body.error }).toEqual({
        text,
        status: 400,
        error: 'invalid_request',
      });
    }
  });
});
