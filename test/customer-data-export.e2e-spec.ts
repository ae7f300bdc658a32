import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExpensiveRequests } from '../src/rate-limit/expensive-requests.js';
import { within } from './support/eventually.js';
import { newApp, newProduct, newTenant, tokenFor } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const PASSWORD = 'correct horse battery staple';

/** CONTRACT 3.11, export: what a tenant holds about a person, found by email. */
describe('customer data export', () => {
  let t: TestApp;
  let tenantId: number;
  let token: string;
  let product: number;
  let otherTenant: { token: string; product: number };

  beforeAll(async () => {
    t = await createTestApp();
    const tenant = await newTenant(t);
    tenantId = tenant.id;
    token = await tokenFor(t, await newApp(t, tenant.id));
    product = await newProduct(t, tenant.id, 1000);
    const other = await newTenant(t);
    otherTenant = {
      token: await tokenFor(t, await newApp(t, other.id)),
      product: await newProduct(t, other.id, 500),
    };
  });
  afterAll(() => t.close());

  const post = (path: string, body: object, bearer = token) =>
    t.http.post(path).set('authorization', `Bearer ${bearer}`).send(body);
  const order = (email: string, extra: object = {}, bearer = token, productId = product) =>
    post(
      '/v1/orders',
      {
        customer: { name: 'Ada', email, ...extra },
        shipping_address: { country: 'TR', city: 'Istanbul', address: 'Moda 1' },
        items: [{ product_id: productId, quantity: 2 }],
      },
      bearer,
    );

  it('the customer and every order with the email (any case) or of the customer, with items, fulfillments and refunds', async () => {
    const email = `ada-${Date.now()}@example.com`;
    const registered = await post('/v1/customers/register', {
      name: 'Ada',
      email,
      password: PASSWORD,
    });
    const linked = await order('another@example.com', { id: registered.body.id });
    const guest = await order(email.toUpperCase());
    await order(`someone-${Date.now()}@example.com`);
    await order(email, {}, otherTenant.token, otherTenant.product);
    // A fulfillment and a refund on the guest order.
    await post(`/v1/orders/${guest.body.id}/status`, { status: 'paid' });
    const fulfillment = await post(`/v1/orders/${guest.body.id}/fulfillments`, {});
    const refund = await post(`/v1/orders/${guest.body.id}/refunds`, { amount: 1 });

    const res = await post('/v1/customers/data-exports', { email: email.toUpperCase() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      email: email.toUpperCase(),
      customer: expect.objectContaining({ id: registered.body.id, email }),
      orders: [
        expect.objectContaining({ id: linked.body.id, fulfillments: [], refunds: [] }),
        expect.objectContaining({
          id: guest.body.id,
          items: [expect.objectContaining({ product_id: product, quantity: 2 })],
          fulfillments: [fulfillment.body],
          refunds: [refund.body],
        }),
      ],
      imports: [],
      generated_at: expect.stringMatching(/Z$/),
    });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const read = await t.http
      .get(`/v1/orders/${guest.body.id}`)
      .set('authorization', `Bearer ${token}`);
    const { fulfillments, refunds, ...exported } = res.body.orders[1];
    expect(exported).toEqual(read.body);
    expect([fulfillments.length, refunds.length]).toEqual([1, 1]);
  });

  it('streams any number of orders, a page at a time, and the imports that did not become orders', async () => {
    const email = `many-${Date.now()}@example.com`;
    const ids: number[] = [];
    for (let i = 0; i < 23; i++)
      ids.push((await order(i % 2 ? email : email.toUpperCase())).body.id);
    const payload = (external: string) => ({
      marketplace: 'n11',
      external_order_id: external,
      customer: { name: 'Ada', email: email.toUpperCase() },
      shipping_address: { country: 'TR', city: 'Izmir', address: 'Street 1' },
      items: [{ sku: 'S', name: 'Thing', quantity: 1, unit_price: 5, total: 5 }],
    });
    for (const [external, status, error, orderId] of [
      ['x-failed', 'failed', 'product 9 is not in the catalog', null],
      ['x-queued', 'queued', null, null],
      ['x-imported', 'imported', null, ids[0]],
    ] as const) {
      await t.dataSource.query(
        `INSERT INTO marketplace_imports (tenant_id, marketplace, external_order_id, status, payload, error, order_id, attempts)
         VALUES ($1, 'n11', $2, $3, $4, $5, $6, 1)`,
        [tenantId, external, status, JSON.stringify(payload(external)), error, orderId],
      );
    }
    const res = await post('/v1/customers/data-exports', { email });
    expect(res.status).toBe(200);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.body.orders.map((o: { id: number }) => o.id)).toEqual(ids);
    expect(res.body.imports).toEqual([
      {
        status: 'failed',
        marketplace: 'n11',
        external_order_id: 'x-failed',
        order_id: null,
        error: 'product 9 is not in the catalog',
        attempts: 1,
        payload: payload('x-failed'),
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
      },
      expect.objectContaining({ status: 'queued', external_order_id: 'x-queued' }),
    ]);
  });

  it('a client that drops an export gives its place back', async () => {
    const email = `dropped-${Date.now()}@example.com`;
    // Some 8 MB of export: more than the sockets buffer, so the answer waits for the client.
    const metadata = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [
        `k${i}`,
        String.fromCodePoint(0x1f600 + i).repeat(500),
      ]),
    );
    for (let i = 0; i < 60; i++) {
      const { id } = (await order(email)).body as { id: number };
      const patched = await t.http
        .patch(`/v1/orders/${id}`)
        .set('authorization', `Bearer ${token}`)
        .send({ metadata });
      expect(patched.status).toBe(200);
    }
    const gate = t.app.get(ExpensiveRequests).gate;
    const server = t.app.getHttpServer();
    if (!server.listening) await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    const firstChunk = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/customers/data-exports',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.once('data', (chunk: Buffer) => {
            resolve(chunk.length);
            req.destroy();
          });
        },
      );
      req.on('error', () => undefined);
      req.once('timeout', () => reject(new Error('no answer')));
      req.end(JSON.stringify({ email }));
    });
    expect(firstChunk).toBeGreaterThan(0);
    expect(gate.running(tenantId)).toBe(1);
    await within(5_000, async () => gate.running(tenantId) === 0);
  });

  it('an unknown person: null and no orders; needs customer:privacy; a bad email is 400', async () => {
    const unknown = await post('/v1/customers/data-exports', { email: 'nobody-here@example.com' });
    expect(unknown.body).toMatchObject({ customer: null, orders: [], imports: [] });
    const limited = await tokenFor(
      t,
      await newApp(t, (await newTenant(t)).id, ['orders:read', 'customer:auth']),
    );
    const denied = await post('/v1/customers/data-exports', { email: 'a@example.com' }, limited);
    expect([denied.status, denied.body.error]).toEqual([403, 'scope_denied']);
    for (const body of [{}, { email: 'not an email' }, { email: 'a@example.com', extra: 1 }]) {
      const bad = await post('/v1/customers/data-exports', body);
      expect({ body, status: bad.status }).toEqual({ body, status: 400 });
    }
  });
});
