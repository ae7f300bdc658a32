import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppsService } from '../src/apps/apps.service.js';
import { CustomerSessions } from '../src/auth/customer-sessions.service.js';
import { Transactions } from '../src/database/transactions.js';
import { type AppScope, createStorefrontClient } from '../src/client/index.js';
import { within } from './support/eventually.js';
import { newApp, newProduct, newTenant, TEST_ADMIN } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const body0 = {
  customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
  shipping_address: { country: 'GB', city: 'London', address: '12 St James’s Square' },
  items: [{ product_id: 1, quantity: 1 }],
};

const SCOPES: AppScope[] = [
  'products:read',
  'orders:read',
  'orders:write',
  'customer:auth',
  'customer:manage',
  'customer:read',
  'order:read',
  'marketplace:import',
  'events:read',
];

/**
 * The typed client (src/client) against the real server over HTTP: every call below is
 * checked at compile time against the OpenAPI document's types, and at run time against
 * what the service answers.
 */
describe('typed client (openapi-fetch over the generated types)', () => {
  let t: TestApp;
  let baseUrl: string;
  let tenantId: number;
  let credentials: { clientId: string; clientSecret: string };
  let tokenRequests = 0;

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${port}`;
    tenantId = (await newTenant(t)).id;
    await newProduct(t, tenantId, 1999, 'TC-SKU-1');
    const app = await newApp(t, tenantId, SCOPES);
    credentials = { clientId: app.clientId, clientSecret: app.clientSecret };
  });
  afterAll(() => t.close());

  const client = () =>
    createStorefrontClient({
      baseUrl,
      ...credentials,
      scopes: SCOPES,
      fetch: (request) => {
        if (new URL(request.url).pathname === '/builders/oauth/token') tokenRequests += 1;
        return fetch(request);
      },
    });

  it('walks token → products → order (Idempotency-Key) → register/login → own orders → import → events', async () => {
    const { app, asCustomer } = client();
    tokenRequests = 0;
    // Never called: `tsc` (npm run lint) fails if the generated types stop refusing these.
    const refusedAtCompileTime = () => [
      // @ts-expect-error no such path
      app.GET('/v1/order'),
      // @ts-expect-error quantity is an integer, not a string
      app.POST('/v1/orders', { body: { ...body0, items: [{ product_id: 1, quantity: '2' }] } }),
      app.GET('/v1/marketplace/orders/import/{marketplace}/{external_order_id}', {
        // @ts-expect-error path parameters are snake_case
        params: { path: { marketplace: 'm', externalOrderId: 'x' } },
      }),
    ];
    expect(refusedAtCompileTime).toBeTypeOf('function');

    const products = await app.GET('/v1/products', { params: { query: { limit: 10 } } });
    expect(products.response.status).toBe(200);
    const product = products.data!.data.find((p) => p.sku === 'TC-SKU-1')!;
    expect(product.price).toBe(19.99);

    const email = `ada-${Date.now()}@example.com`;
    const body = {
      customer: { name: 'Ada Lovelace', email },
      shipping_address: { country: 'GB', city: 'London', address: '12 St James’s Square' },
      items: [{ product_id: product.id, quantity: 2 }],
    };
    const key = `tc-${Date.now()}`;
    const created = await app.POST('/v1/orders', {
      body,
      params: { header: { 'Idempotency-Key': key } },
    });
    expect(created.response.status).toBe(201);
    expect(created.data!.total).toBe(39.98);
    expect(created.response.headers.get('location')).toBe(`/v1/orders/${created.data!.id}`);
    const replay = await app.POST('/v1/orders', {
      body,
      params: { header: { 'Idempotency-Key': key } },
    });
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data!.id).toBe(created.data!.id);

    const registered = await app.POST('/v1/customers/register', {
      body: { name: 'Ada Lovelace', email, password: 'analytical engine 1843' },
    });
    expect(registered.response.status).toBe(201);
    const login = await app.POST('/v1/customers/login', {
      body: { email, password: 'analytical engine 1843' },
    });
    expect(login.response.status).toBe(200);
    const customer = asCustomer(login.data!.token);
    const me = await customer.GET('/v1/customers/me');
    expect(me.data!.email).toBe(email);
    // Verified through a ticket the app delivers: the order placed with this email before
    // registration becomes the customer's own.
    const ticket = await app.POST('/v1/customers/tickets', {
      body: { type: 'email_verification', email },
    });
    expect(ticket.response.status).toBe(201);
    const verified = await app.POST('/v1/customers/verify-email', {
      body: { token: ticket.data!.token },
    });
    expect(verified.data!.email_verified).toBe(true);
    const own = await customer.GET('/v1/customers/me/orders', { params: { query: {} } });
    expect(own.response.status).toBe(200);
    expect(own.data!.data.map((o) => o.id)).toEqual([created.data!.id]);

    const externalOrderId = `TC-${Date.now()}`;
    const queued = await app.POST('/v1/marketplace/orders/import', {
      body: {
        marketplace: 'trendyol',
        external_order_id: externalOrderId,
        customer: { name: 'Grace Hopper', email: 'grace@example.com' },
        shipping_address: { country: 'US', city: 'Arlington', address: '1 Navy Way' },
        items: [{ sku: 'TC-SKU-1', name: 'Widget', quantity: 1, unit_price: 19.99, total: 19.99 }],
      },
    });
    expect(queued.response.status).toBe(202);
    const statusPath = {
      params: { path: { marketplace: 'trendyol', external_order_id: externalOrderId } },
    };
    await within(10_000, async () => {
      const status = await app.GET(
        '/v1/marketplace/orders/import/{marketplace}/{external_order_id}',
        statusPath,
      );
      return status.data?.status === 'imported';
    });

    let types: string[] = [];
    await within(10_000, async () => {
      const feed = await app.GET('/v1/events', { params: { query: { limit: 500 } } });
      types = feed.data!.data.map((event) => event.type);
      return (
        types.includes('customer.created') && types.filter((x) => x === 'order.created').length >= 2
      );
    });
    expect(types).toEqual(expect.arrayContaining(['order.created', 'customer.created']));
    // Every app call above shared one cached token.
    expect(tokenRequests).toBe(1);
  });

  it('a refused token is replaced once: after revocation the next call still succeeds', async () => {
    const { app, tokens } = client();
    const first = await tokens.token();
    const jti = JSON.parse(Buffer.from(first.split('.')[1], 'base64url').toString()).jti as string;
    // As `cli apps revoke-token` does; this instance applies it at commit.
    await t.app.get(AppsService).revokeToken(TEST_ADMIN, jti);
    const products = await app.GET('/v1/products', { params: { query: {} } });
    expect(products.response.status).toBe(200);
    expect(await tokens.token()).not.toBe(first);
  });

  it('a wrong customer password is answered once: no new token, no second login', async () => {
    tokenRequests = 0;
    const logins: string[] = [];
    const counting = createStorefrontClient({
      baseUrl,
      ...credentials,
      scopes: SCOPES,
      fetch: (request) => {
        const path = new URL(request.url).pathname;
        if (path === '/builders/oauth/token') tokenRequests += 1;
        if (path === '/v1/customers/login') logins.push(path);
        return fetch(request);
      },
    });
    await counting.app.GET('/v1/products', { params: { query: {} } });
    const refused = await counting.app.POST('/v1/customers/login', {
      body: { email: 'nobody@example.com', password: 'not the password at all' },
    });
    expect(refused.response.status).toBe(401);
    expect(refused.error).toMatchObject({ error: 'invalid_credentials' });
    expect(logins).toHaveLength(1);
    expect(tokenRequests).toBe(1);
  });

  it('a customer session the API refuses is renewed once with its refresh token, for concurrent calls too', async () => {
    const refreshes: string[] = [];
    const counting = createStorefrontClient({
      baseUrl,
      ...credentials,
      scopes: SCOPES,
      fetch: (request) => {
        const path = new URL(request.url).pathname;
        if (path === '/v1/customers/token') refreshes.push(path);
        return fetch(request);
      },
    });
    const email = `renew-${Date.now()}@example.com`;
    const password = 'a long enough passphrase';
    await counting.app.POST('/v1/customers/register', { body: { name: 'Ada', email, password } });
    const login = await counting.app.POST('/v1/customers/login', { body: { email, password } });
    const stored: string[] = [];
    const { client: customer, session } = counting.forCustomer(login.data!, (next) =>
      stored.push(next.refresh_token),
    );
    expect((await customer.GET('/v1/customers/me')).response.status).toBe(200);

    // The session ends (as when it expires); its chain lives on.
    const jti = JSON.parse(Buffer.from(login.data!.token.split('.')[1], 'base64url').toString())
      .jti as string;
    await t.app
      .get(Transactions)
      .run((db) => t.app.get(CustomerSessions).revokeOne(db, tenantId, jti));
    const answers = await Promise.all([1, 2, 3].map(() => customer.GET('/v1/customers/me')));
    expect(answers.map((a) => a.response.status)).toEqual([200, 200, 200]);
    expect(refreshes).toHaveLength(1);
    expect(stored).toHaveLength(1);
    expect(session.token).not.toBe(login.data!.token);

    // A logout ends the chain: the next refusal cannot be renewed, and says so.
    expect((await customer.POST('/v1/customers/logout')).response.status).toBe(204);
    await expect(customer.GET('/v1/customers/me')).rejects.toMatchObject({
      name: 'SessionEndedError',
      status: 400,
      error: 'invalid_grant',
    });
  });

  it('typed errors: a 404 carries the error body', async () => {
    const { app } = client();
    const missing = await app.GET('/v1/orders/{id}', { params: { path: { id: 999_999_999 } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ error: 'not_found' });
    expect(missing.response.headers.get('x-request-id')).toBeTruthy();
  });
});
