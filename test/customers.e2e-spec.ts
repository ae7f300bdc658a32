import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import argon2 from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppsService } from '../src/apps/apps.service.js';
import { CredentialsState } from '../src/auth/credentials-state.service.js';
import { ARGON2_OPTIONS } from '../src/customers/password-hasher.js';
import { within } from './support/eventually.js';
import {
  newApp,
  newProduct,
  newTenant,
  TEST_ADMIN,
  tokenFor,
  type TestClient,
} from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const PASSWORD = 'correct horse battery staple';

describe('customer accounts', () => {
  let t: TestApp;
  let tenantId: number;
  let storefront: TestClient;
  let appToken: string;
  let productId: number;

  beforeAll(async () => {
    t = await createTestApp({ LOGIN_FAILURES_PER_EMAIL: '3' });
    tenantId = (await newTenant(t)).id;
    productId = await newProduct(t, tenantId, 1234);
    storefront = await newApp(t, tenantId);
    appToken = await tokenFor(t, storefront);
  });
  afterAll(() => t.close());

  const email = () => `c-${randomBytes(4).toString('hex')}@example.com`;
  const register = (body: Record<string, unknown>, token = appToken) =>
    t.http.post('/v1/customers/register').set('authorization', `Bearer ${token}`).send(body);
  const login = (body: Record<string, unknown>, token = appToken) =>
    t.http.post('/v1/customers/login').set('authorization', `Bearer ${token}`).send(body);
  const as = (token: string, path: string) =>
    t.http.get(path).set('authorization', `Bearer ${token}`);

  async function newCustomer(
    token = appToken,
  ): Promise<{ id: number; email: string; session: string }> {
    const address = email();
    const created = await register({ name: 'Ada', email: address, password: PASSWORD }, token);
    expect(created.status).toBe(201);
    const session = await login({ email: address, password: PASSWORD }, token);
    expect(session.status).toBe(200);
    return { id: created.body.id as number, email: address, session: session.body.token as string };
  }

  async function orderFor(customer: Record<string, unknown>): Promise<number> {
    const res = await t.http
      .post('/v1/orders')
      .set('authorization', `Bearer ${appToken}`)
      .send({
        customer,
        shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
        items: [{ product_id: productId, quantity: 1 }],
      });
    expect(res.status).toBe(201);
    return res.body.id as number;
  }

  describe('register', () => {
    it('201 with {id, name, email, phone}; the password is stored as argon2id and never returned', async () => {
      const address = email();
      const res = await register({
        name: 'Ada',
        email: address,
        password: PASSWORD,
        phone: '+90 555',
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'Ada',
        email: address,
        phone: '+90 555',
        email_verified: false,
      });
      const [row] = await t.dataSource.query('SELECT password_hash FROM customers WHERE id = $1', [
        res.body.id,
      ]);
      expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
      expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    });

    it('email taken (any case) → 409 email_taken; the same email in another tenant is another customer', async () => {
      const address = email();
      await register({ name: 'Ada', email: address, password: PASSWORD });
      const again = await register({
        name: 'Ada 2',
        email: address.toUpperCase(),
        password: PASSWORD,
      });
      expect(again.status).toBe(409);
      expect(again.body.error).toBe('email_taken');

      const other = await newTenant(t);
      const otherToken = await tokenFor(t, await newApp(t, other.id));
      const elsewhere = await register(
        { name: 'Ada', email: address, password: PASSWORD },
        otherToken,
      );
      expect(elsewhere.status).toBe(201);
    });

    it.each([
      ['password 7 characters', { password: '1234567' }, 'password'],
      ['password 129 characters', { password: 'x'.repeat(129) }, 'password'],
      ['a common password', { password: 'password123' }, 'password'],
      ['bad email', { email: 'not-an-email' }, 'email'],
      ['empty name', { name: '' }, 'name'],
      ['name 201 characters', { name: 'x'.repeat(201) }, 'name'],
      ['unknown property', { admin: true }, 'admin'],
    ])('%s → 400 validation_failed', async (_name, override, field) => {
      const res = await register({ name: 'Ada', email: email(), password: PASSWORD, ...override });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(JSON.stringify(res.body)).not.toContain(
        (override as { password?: string }).password ?? PASSWORD,
      );
    });

    it('accepts 8 and 128 characters, exactly as sent (no trimming)', async () => {
      const eight = email();
      expect((await register({ name: 'A', email: eight, password: ' 8chars ' })).status).toBe(201);
      expect((await login({ email: eight, password: ' 8chars ' })).status).toBe(200);
      expect((await login({ email: eight, password: '8chars' })).status).toBe(401);
      expect(
        (await register({ name: 'A', email: email(), password: 'y'.repeat(128) })).status,
      ).toBe(201);
    });

    it('needs an app token with customer:auth', async () => {
      const noAuth = await tokenFor(t, await newApp(t, tenantId, ['orders:read']));
      const res = await register({ name: 'A', email: email(), password: PASSWORD }, noAuth);
      expect(res.status).toBe(403);
      expect(res.headers['www-authenticate']).toBe(
        'Bearer error="insufficient_scope", scope="customer:auth"',
      );
    });
  });

  describe('login', () => {
    it('200 {token, token_type, expires_in, scope, refresh_token, refresh_expires_in, customer}; the token is a customer session', async () => {
      const address = email();
      const created = await register({ name: 'Ada', email: address, password: PASSWORD });
      const res = await login({ email: address.toUpperCase(), password: PASSWORD });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 86400,
        scope: 'customer:read order:read',
        refresh_token: expect.stringMatching(/^rt_[A-Za-z0-9_-]{43}$/),
        refresh_expires_in: 7 * 86400,
        customer: {
          id: created.body.id,
          name: 'Ada',
          email: address,
          phone: null,
          email_verified: false,
        },
      });
      const header = JSON.parse(
        Buffer.from((res.body.token as string).split('.')[0], 'base64url').toString(),
      );
      expect(header).toMatchObject({ alg: 'ES256', typ: 'customer-session+jwt' });
    });

    it('unknown email and wrong password → the same 401 invalid_credentials', async () => {
      const address = email();
      await register({ name: 'Ada', email: address, password: PASSWORD });
      const wrong = await login({ email: address, password: 'wrong password!' });
      const unknown = await login({ email: email(), password: PASSWORD });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body).toEqual({
        error: 'invalid_credentials',
        error_description: 'The email or password is incorrect',
      });
      expect(unknown.body).toEqual(wrong.body);
    });

    it('the N+1st failed login for an email → 429 with Retry-After; another email still logs in', async () => {
      const victim = email();
      await register({ name: 'V', email: victim, password: PASSWORD });
      const bystander = await newCustomer();
      for (let i = 0; i < 3; i++)
        expect((await login({ email: victim, password: `wrong-${i}-password` })).status).toBe(401);
      const limited = await login({ email: victim, password: 'wrong-3-password' });
      expect(limited.status).toBe(429);
      expect(limited.body.error).toBe('rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // Blocked before any check: even the right password waits.
      expect((await login({ email: victim, password: PASSWORD })).status).toBe(429);
      expect((await login({ email: bystander.email, password: PASSWORD })).status).toBe(200);
    });

    it('upgrades a hash made with weaker parameters on the next successful login', async () => {
      const address = email();
      const created = await register({ name: 'Old', email: address, password: PASSWORD });
      const weak = await argon2.hash(PASSWORD, {
        ...ARGON2_OPTIONS,
        memoryCost: 4096,
        timeCost: 1,
      });
      await t.dataSource.query('UPDATE customers SET password_hash = $1 WHERE id = $2', [
        weak,
        created.body.id,
      ]);
      expect((await login({ email: address, password: PASSWORD })).status).toBe(200);
      const [row] = await t.dataSource.query('SELECT password_hash FROM customers WHERE id = $1', [
        created.body.id,
      ]);
      expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
      expect((await login({ email: address, password: PASSWORD })).status).toBe(200);
    });

    it.each([
      [{ email: 'x@example.com' }],
      [{ password: PASSWORD }],
      [{ email: 'nope', password: PASSWORD }],
    ])('missing or malformed fields %j → 400', async (body) => {
      expect((await login(body)).status).toBe(400);
    });
  });

  describe('session', () => {
    it('GET /me → the customer; POST /logout → 204 and the token is dead (401)', async () => {
      const c = await newCustomer();
      const me = await as(c.session, '/v1/customers/me');
      expect(me.status).toBe(200);
      expect(me.body).toEqual({
        id: c.id,
        name: 'Ada',
        email: c.email,
        phone: null,
        email_verified: false,
      });
      const out = await t.http
        .post('/v1/customers/logout')
        .set('authorization', `Bearer ${c.session}`);
      expect(out.status).toBe(204);
      expect(out.text).toBe('');
      const elapsed = await within(
        1000,
        async () => (await as(c.session, '/v1/customers/me')).status === 401,
      );
      expect(elapsed).toBeLessThan(1000);
    });

    it('the instance that ends a session refuses it on the next request, before its own NOTIFY', async () => {
      const c = await newCustomer();
      expect((await as(c.session, '/v1/customers/me')).status).toBe(200);
      // Hold back the notifications this instance listens to: only its own commit can tell it.
      const state: { listener: { connection: { stream: Socket } } } = t.app.get(CredentialsState);
      const stream = state.listener.connection.stream;
      stream.pause();
      try {
        const out = await t.http
          .post('/v1/customers/logout')
          .set('authorization', `Bearer ${c.session}`);
        expect(out.status).toBe(204);
        expect((await as(c.session, '/v1/customers/me')).status).toBe(401);
      } finally {
        stream.resume();
      }
    });

    it('logout kills that session only', async () => {
      const c = await newCustomer();
      const second = (await login({ email: c.email, password: PASSWORD })).body.token as string;
      await t.http.post('/v1/customers/logout').set('authorization', `Bearer ${c.session}`);
      await within(1000, async () => (await as(c.session, '/v1/customers/me')).status === 401);
      expect((await as(second, '/v1/customers/me')).status).toBe(200);
    });

    it('an app token on /me → 403; a session token on POST /v1/orders and app-only reads → 403', async () => {
      const c = await newCustomer();
      const me = await as(appToken, '/v1/customers/me');
      expect(me.status).toBe(403);
      expect(me.headers['www-authenticate']).toBe(
        'Bearer error="insufficient_scope", scope="customer:read"',
      );
      const create = await t.http
        .post('/v1/orders')
        .set('authorization', `Bearer ${c.session}`)
        .send({});
      expect(create.status).toBe(403);
      expect(create.headers['www-authenticate']).toBe(
        'Bearer error="insufficient_scope", scope="orders:write"',
      );
      expect((await as(c.session, '/v1/products')).status).toBe(403);
      const registerWithSession = await t.http
        .post('/v1/customers/register')
        .set('authorization', `Bearer ${c.session}`)
        .send({});
      expect(registerWithSession.status).toBe(403);
    });

    it('403 when the app lacked customer:read / order:read at login', async () => {
      const narrowApp = await tokenFor(t, storefront, 'customer:auth customer:read');
      const c = await newCustomer();
      const session = await login({ email: c.email, password: PASSWORD }, narrowApp);
      expect(session.body.scope).toBe('customer:read');
      expect((await as(session.body.token as string, '/v1/customers/me')).status).toBe(200);
      const orders = await as(session.body.token as string, '/v1/customers/me/orders');
      expect(orders.status).toBe(403);
      expect(orders.headers['www-authenticate']).toBe(
        'Bearer error="insufficient_scope", scope="order:read"',
      );

      const authOnly = await tokenFor(t, storefront, 'customer:auth');
      const bare = await login({ email: c.email, password: PASSWORD }, authOnly);
      expect(bare.body.scope).toBe('');
      expect((await as(bare.body.token as string, '/v1/customers/me')).status).toBe(403);
    });

    it('deactivating the app kills its customer sessions within 1 s', async () => {
      const tenant = await newTenant(t);
      const app = await newApp(t, tenant.id);
      const token = await tokenFor(t, app);
      const c = await newCustomer(token);
      expect((await as(c.session, '/v1/customers/me')).status).toBe(200);
      await t.app.get(AppsService).setActive(TEST_ADMIN, app.clientId, false);
      expect(
        await within(1000, async () => (await as(c.session, '/v1/customers/me')).status === 401),
      ).toBeLessThan(1000);
    });
  });

  describe('own orders', () => {
    it('a customer sees only own orders, through every path; others get 404', async () => {
      const a = await newCustomer();
      const b = await newCustomer();
      // Linking by email needs a verified email (docs/BEHAVIOUR.md#email-trust).
      await t.dataSource.query('UPDATE customers SET email_verified = true WHERE id = ANY($1)', [
        [a.id, b.id],
      ]);
      const byId = await orderFor({ id: a.id, name: 'A', email: 'whatever@example.com' });
      const byEmail = await orderFor({ name: 'A', email: a.email.toUpperCase() });
      const ofB = await orderFor({ name: 'B', email: b.email });
      const anonymous = await orderFor({ name: 'X', email: email() });

      for (const path of ['/v1/customers/me/orders', '/v1/orders']) {
        const list = await as(a.session, path);
        expect(list.status).toBe(200);
        expect(list.body.data.map((o: { id: number }) => o.id)).toEqual([byEmail, byId]);
        expect(list.body.meta).toEqual({
          page: 1,
          limit: 20,
          total: 2,
          total_pages: 1,
          next_cursor: null,
          has_more: false,
        });
      }
      for (const path of [`/v1/customers/me/orders/${byId}`, `/v1/orders/${byEmail}`]) {
        expect((await as(a.session, path)).status).toBe(200);
      }
      for (const id of [ofB, anonymous]) {
        for (const path of [`/v1/customers/me/orders/${id}`, `/v1/orders/${id}`]) {
          const res = await as(a.session, path);
          expect(res.status).toBe(404);
          expect(res.body.error).toBe('not_found');
        }
      }
      expect((await as(a.session, '/v1/customers/me/orders?status=bogus')).status).toBe(400);
      expect((await as(a.session, '/v1/customers/me/orders/abc')).status).toBe(400);
    });

    it("another tenant's orders are never reachable", async () => {
      const a = await newCustomer();
      const other = await newTenant(t);
      const otherProduct = await newProduct(t, other.id, 100);
      const otherToken = await tokenFor(t, await newApp(t, other.id));
      const foreign = await t.http
        .post('/v1/orders')
        .set('authorization', `Bearer ${otherToken}`)
        .send({
          customer: { name: 'A', email: a.email },
          shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
          items: [{ product_id: otherProduct, quantity: 1 }],
        });
      expect(foreign.body.customer.id).toBeNull();
      expect((await as(a.session, `/v1/orders/${foreign.body.id}`)).status).toBe(404);
      expect((await as(a.session, `/v1/customers/me/orders/${foreign.body.id}`)).status).toBe(404);
    });
  });
});
