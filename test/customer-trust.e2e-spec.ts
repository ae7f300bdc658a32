import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PasswordHasher } from '../src/customers/password-hasher.js';
import { within } from './support/eventually.js';
import { newApp, newProduct, newTenant, tokenFor, type TestClient } from './support/factories.js';
import { processBudget, runCli, sharedInstanceEnv } from './support/processes.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase 42';
const SHIPPING = { country: 'TR', city: 'Istanbul', address: 'Street 1' };

/**
 * Issue 15: orders are linked by email only to a customer who proved the address; tickets
 * (verification, reset) are single use; sessions end on every instance within 1 s.
 */
describe('customer accounts you can trust', () => {
  let a: TestApp;
  let b: TestApp;
  let env: Record<string, string>;
  let tenantId: number;
  let productId: number;
  let storefront: TestClient;
  let appToken: string;
  const logs: string[] = [];
  /** Every token the service handed out in this file: none may appear in its logs. */
  const issued: string[] = [];

  beforeAll(async () => {
    const shared = await sharedInstanceEnv('http://localhost:3000');
    env = { ...shared, NODE_ENV: 'test', LOG_LEVEL: 'trace', LOGIN_FAILURES_PER_EMAIL: '3' };
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(chunk.toString());
        done();
      },
    });
    a = await createTestApp(env, [], destination, shared.DATABASE_URL);
    b = await createTestApp(env, [], destination, shared.DATABASE_URL);
    tenantId = (await newTenant(a)).id;
    productId = await newProduct(a, tenantId, 1000);
    storefront = await newApp(a, tenantId);
    appToken = await tokenFor(a, storefront);
    issued.push(appToken);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  const email = () => `c-${randomBytes(5).toString('hex')}@example.com`;
  const post = (t: TestApp, path: string, token: string, body: object = {}) =>
    t.http.post(path).set('authorization', `Bearer ${token}`).send(body);
  const get = (t: TestApp, path: string, token: string) =>
    t.http.get(path).set('authorization', `Bearer ${token}`);

  async function register(address: string, password = PASSWORD): Promise<number> {
    const res = await post(a, '/v1/customers/register', appToken, {
      name: 'Ada',
      email: address,
      password,
    });
    expect(res.status).toBe(201);
    expect(res.body.email_verified).toBe(false);
    return res.body.id as number;
  }

  async function login(address: string, password = PASSWORD, t = a): Promise<string> {
    const res = await post(t, '/v1/customers/login', appToken, { email: address, password });
    expect(res.status).toBe(200);
    issued.push(res.body.token);
    return res.body.token as string;
  }

  async function ticket(type: 'email_verification' | 'password_reset', address: string) {
    const res = await post(a, '/v1/customers/tickets', appToken, { type, email: address });
    expect(res.status).toBe(201);
    issued.push(res.body.token);
    return res.body as { type: string; token: string; expires_at: string; customer_id: number };
  }

  async function guestOrder(address: string): Promise<number> {
    const res = await post(a, '/v1/orders', appToken, {
      customer: { name: 'Victim', email: address, phone: '+90 555 000' },
      shipping_address: SHIPPING,
      items: [{ product_id: productId, quantity: 1 }],
    });
    expect(res.status).toBe(201);
    return res.body.id as number;
  }

  async function importedOrder(address: string): Promise<number> {
    const externalId = randomBytes(4).toString('hex');
    const res = await post(a, '/v1/marketplace/orders/import', appToken, {
      marketplace: 'trendyol',
      external_order_id: externalId,
      customer: { name: 'Victim', email: address.toUpperCase() },
      shipping_address: SHIPPING,
      items: [{ sku: 'S-1', name: 'Shoe', quantity: 1, unit_price: 10, total: 10 }],
    });
    expect(res.status).toBe(202);
    const status = `/v1/marketplace/orders/import/trendyol/${externalId}`;
    let orderId = 0;
    await within(15_000, async () => {
      const s = await get(a, status, appToken);
      orderId = s.body.order_id as number;
      return s.body.status === 'imported';
    });
    return orderId;
  }

  /**
   * Password verifications on `t` complete, then wait for `release()`: a login or a change
   * held just after its check, for racing a reset against it.
   */
  function holdVerifications(t: TestApp) {
    const hasher = t.app.get(PasswordHasher, { strict: false });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const realVerify = hasher.verify.bind(hasher);
    const verify = vi.spyOn(hasher, 'verify').mockImplementation(async (hash, password) => {
      const ok = await realVerify(hash, password);
      await gate;
      return ok;
    });
    return { verify, release };
  }

  const myOrderIds = async (session: string, t = a): Promise<number[]> => {
    const res = await get(t, '/v1/customers/me/orders', session);
    expect(res.status).toBe(200);
    return (res.body.data as Array<{ id: number }>).map((o) => o.id).sort((x, y) => x - y);
  };

  it('registering someone else’s address shows nothing; once the owner proves it, they see every order', async () => {
    const victim = email();
    const attackerId = await register(victim, 'the attackers password');
    const attacker = await login(victim, 'the attackers password');
    const guest = await guestOrder(victim);
    const imported = await importedOrder(victim);
    expect(await myOrderIds(attacker)).toEqual([]);
    for (const id of [guest, imported]) {
      expect((await get(a, `/v1/orders/${id}`, attacker)).status).toBe(404);
      expect((await get(a, `/v1/orders/${id}`, appToken)).body.customer.id).toBeNull();
    }

    // The real owner receives the storefront's emails: a reset takes the account back (every
    // session ends, the attacker's included), a verification proves the address.
    const reset = await ticket('password_reset', victim);
    expect(reset.customer_id).toBe(attackerId);
    const afterReset = await post(a, '/v1/customers/reset-password', appToken, {
      token: reset.token,
      password: NEW_PASSWORD,
    });
    expect(afterReset.status).toBe(200);
    expect((await get(a, '/v1/customers/me', attacker)).status).toBe(401);
    const verification = await ticket('email_verification', victim);
    const verified = await post(a, '/v1/customers/verify-email', appToken, {
      token: verification.token,
    });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ id: attackerId, email: victim, email_verified: true });

    const owner = await login(victim, NEW_PASSWORD);
    expect(await myOrderIds(owner)).toEqual([guest, imported].sort((x, y) => x - y));
    // Later orders with the address link at once, by email in any case.
    const later = await guestOrder(victim.toUpperCase());
    expect((await get(a, `/v1/orders/${later}`, appToken)).body.customer.id).toBe(attackerId);
  });

  it('verification links only this tenant’s unlinked orders with that email', async () => {
    const address = email();
    const other = await newTenant(a);
    const otherProduct = await newProduct(a, other.id, 500);
    const otherToken = await tokenFor(a, await newApp(a, other.id));
    const foreign = await post(a, '/v1/orders', otherToken, {
      customer: { name: 'X', email: address },
      shipping_address: SHIPPING,
      items: [{ product_id: otherProduct, quantity: 1 }],
    });
    const someoneElse = await guestOrder(email());
    const mine = await guestOrder(address);
    await register(address);
    const res = await post(a, '/v1/customers/verify-email', appToken, {
      token: (await ticket('email_verification', address)).token,
    });
    expect(res.status).toBe(200);
    const owner = await login(address);
    expect(await myOrderIds(owner)).toEqual([mine]);
    expect((await get(a, `/v1/orders/${someoneElse}`, appToken)).body.customer.id).toBeNull();
    expect((await get(a, `/v1/orders/${foreign.body.id}`, otherToken)).body.customer.id).toBeNull();
  });

  it.each(['verify-email', 'reset-password'] as const)(
    'two concurrent %s with one token: exactly one wins',
    async (route) => {
      const address = email();
      await register(address);
      const type = route === 'verify-email' ? 'email_verification' : 'password_reset';
      const { token } = await ticket(type, address);
      const body = route === 'verify-email' ? { token } : { token, password: NEW_PASSWORD };
      const results = await Promise.all(
        [a, b, a, b].map((t) => post(t, `/v1/customers/${route}`, appToken, body).then((r) => r)),
      );
      const statuses = results.map((r) => r.status).sort((x, y) => x - y);
      expect(statuses).toEqual([200, 400, 400, 400]);
      for (const loser of results.filter((r) => r.status === 400)) {
        expect(loser.body.error).toBe('invalid_ticket');
      }
    },
  );

  it('a ticket is single use, expires, is superseded by a newer one, and is bound to its type and tenant', async () => {
    const address = email();
    await register(address);
    const verify = (token: string, app = appToken) =>
      post(a, '/v1/customers/verify-email', app, { token });

    const old = await ticket('email_verification', address);
    const newer = await ticket('email_verification', address);
    expect((await verify(old.token)).body.error).toBe('invalid_ticket');
    const reset = await ticket('password_reset', address);
    expect((await verify(reset.token)).status).toBe(400);

    const otherTenant = await newTenant(a);
    const otherToken = await tokenFor(a, await newApp(a, otherTenant.id));
    expect((await verify(newer.token, otherToken)).body.error).toBe('invalid_ticket');

    await a.dataSource.query(
      `UPDATE customer_tickets SET expires_at = now() - interval '1 second'
       WHERE customer_id = $1 AND type = 'email_verification'`,
      [newer.customer_id],
    );
    expect((await verify(newer.token)).body.error).toBe('invalid_ticket');
    const fresh = await ticket('email_verification', address);
    expect((await verify(fresh.token)).status).toBe(200);
    expect((await verify(fresh.token)).body.error).toBe('invalid_ticket');
    for (const junk of ['', 'tkt_short', fresh.token.toUpperCase(), 'x'.repeat(5000)]) {
      const res = await verify(junk);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_ticket');
    }
  });

  it('tickets: 201 shape, only a hash stored, 404 for an unknown email, customer:manage needed', async () => {
    const address = email();
    const id = await register(address);
    const t1 = await ticket('email_verification', address.toUpperCase());
    expect(t1).toEqual({
      type: 'email_verification',
      token: expect.stringMatching(/^tkt_[\w-]{43}$/),
      expires_at: expect.any(String),
      customer_id: id,
    });
    const ttl = (Date.parse(t1.expires_at) - Date.now()) / 3_600_000;
    expect(ttl).toBeGreaterThan(23.9);
    expect(ttl).toBeLessThanOrEqual(24);
    const rows: Array<{ row: string }> = await a.dataSource.query(
      'SELECT row_to_json(t)::text AS row FROM customer_tickets t WHERE customer_id = $1',
      [id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].row).not.toContain(t1.token.slice(4));
    expect(rows[0].row).not.toContain(Buffer.from(t1.token).toString('hex'));

    const unknown = await post(a, '/v1/customers/tickets', appToken, {
      type: 'password_reset',
      email: email(),
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('not_found');

    const authOnly = await tokenFor(a, await newApp(a, tenantId, ['customer:auth']));
    const denied = await post(a, '/v1/customers/tickets', authOnly, {
      type: 'password_reset',
      email: address,
    });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('scope_denied');
    expect(denied.headers['www-authenticate']).toContain('scope="customer:manage"');
  });

  it('reset-password: the policy applies, the failed-login count is cleared, every session ends on both instances within 1 s', async () => {
    const address = email();
    await register(address);
    const sessions = [await login(address, PASSWORD, a), await login(address, PASSWORD, b)];
    for (let i = 0; i < 3; i++) {
      const wrong = await post(a, '/v1/customers/login', appToken, {
        email: address,
        password: 'wrong password',
      });
      expect(wrong.status).toBe(401);
    }
    expect(
      (await post(a, '/v1/customers/login', appToken, { email: address, password: PASSWORD }))
        .status,
    ).toBe(429);

    const { token } = await ticket('password_reset', address);
    const weak = await post(a, '/v1/customers/reset-password', appToken, {
      token,
      password: 'password',
    });
    expect(weak.status).toBe(400);
    expect(weak.body.error).toBe('validation_failed');
    const reset = await post(a, '/v1/customers/reset-password', appToken, {
      token,
      password: NEW_PASSWORD,
    });
    expect(reset.status).toBe(200);
    for (const session of sessions) {
      for (const t of [a, b]) {
        await within(1_000, async () => (await get(t, '/v1/customers/me', session)).status === 401);
      }
    }
    // The count is cleared: the new password logs in at once; the old one is refused.
    expect(
      (await post(a, '/v1/customers/login', appToken, { email: address, password: PASSWORD }))
        .status,
    ).toBe(401);
    await login(address, NEW_PASSWORD);
  });

  it('me/password: a wrong current password is a counted failed login; success ends every other session, not this one', async () => {
    const address = email();
    await register(address);
    const changer = await login(address, PASSWORD, a);
    const others = [await login(address, PASSWORD, a), await login(address, PASSWORD, b)];
    const change = (current: string, next = NEW_PASSWORD) =>
      post(a, '/v1/customers/me/password', changer, {
        current_password: current,
        new_password: next,
      });

    const wrong = await change('not my password');
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({
      error: 'validation_failed',
      error_description: 'current_password is not the current password',
      details: [{ field: 'current_password', message: 'is not the current password' }],
    });
    expect((await change(PASSWORD, 'password')).status).toBe(400);

    const ok = await change(PASSWORD);
    expect(ok.status).toBe(204);
    for (const session of others) {
      for (const t of [a, b]) {
        await within(1_000, async () => (await get(t, '/v1/customers/me', session)).status === 401);
      }
    }
    expect((await get(b, '/v1/customers/me', changer)).status).toBe(200);
    await login(address, NEW_PASSWORD, b);

    // Wrong current passwords count with failed logins: 3 in all, then 429.
    await change('wrong 1');
    await change('wrong 2');
    const limited = await change('wrong 3');
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('rate_limited');
  });

  it('logout-all: 204, and every session of the customer ends on both instances within 1 s', async () => {
    const address = email();
    await register(address);
    const sessions = [await login(address, PASSWORD, a), await login(address, PASSWORD, b)];
    const bystander = await login(
      await (async () => {
        const other = email();
        await register(other);
        return other;
      })(),
    );
    // Each session is verified, and so cached, on both instances before it ends.
    for (const session of sessions) {
      for (const t of [a, b]) expect((await get(t, '/v1/customers/me', session)).status).toBe(200);
    }
    const res = await post(b, '/v1/customers/logout-all', sessions[1]);
    expect(res.status).toBe(204);
    for (const session of sessions) {
      for (const t of [a, b]) {
        await within(1_000, async () => (await get(t, '/v1/customers/me', session)).status === 401);
      }
    }
    expect((await get(a, '/v1/customers/me', bystander)).status).toBe(200);
  });

  it('a login whose password check straddles a reset opens no session', async () => {
    const address = email();
    await register(address);
    const { verify, release } = holdVerifications(a);
    // The old password is verified, then held while the owner resets it.
    const racing = post(a, '/v1/customers/login', appToken, {
      email: address,
      password: PASSWORD,
    }).then((r) => r);
    await within(5_000, async () => verify.mock.calls.length >= 1);
    const { token } = await ticket('password_reset', address);
    const reset = await post(b, '/v1/customers/reset-password', appToken, {
      token,
      password: NEW_PASSWORD,
    });
    expect(reset.status).toBe(200);
    release();
    const late = await racing;
    verify.mockRestore();
    expect(late.status).toBe(401);
    expect(late.body.error).toBe('invalid_credentials');
    const [{ n }] = await a.dataSource.query(
      `SELECT count(*)::int AS n FROM customer_sessions s JOIN customers c
         ON c.tenant_id = s.tenant_id AND c.id = s.customer_id
       WHERE lower(c.email) = lower($1) AND s.revoked_at IS NULL`,
      [address],
    );
    expect(n).toBe(0);
  });

  it('a password change racing a reset loses: the reset’s password holds, the changer’s session is dead', async () => {
    const address = email();
    await register(address);
    const attacker = await login(address);
    const { verify, release } = holdVerifications(a);
    const change = post(a, '/v1/customers/me/password', attacker, {
      current_password: PASSWORD,
      new_password: 'the attackers new password',
    }).then((r) => r);
    await within(5_000, async () => verify.mock.calls.length >= 1);
    const { token } = await ticket('password_reset', address);
    expect(
      (await post(b, '/v1/customers/reset-password', appToken, { token, password: NEW_PASSWORD }))
        .status,
    ).toBe(200);
    release();
    const late = await change;
    verify.mockRestore();
    expect(late.status).toBe(401);
    await login(address, NEW_PASSWORD);
    const stolen = await post(a, '/v1/customers/login', appToken, {
      email: address,
      password: 'the attackers new password',
    });
    expect(stolen.status).toBe(401);
  });

  it('concurrent ticket requests leave exactly one usable ticket of the type', async () => {
    const address = email();
    await register(address);
    const tickets = await Promise.all(
      [a, b, a, b].map((t) =>
        post(t, '/v1/customers/tickets', appToken, { type: 'password_reset', email: address }).then(
          (r) => r,
        ),
      ),
    );
    const statuses = [];
    for (const res of tickets) {
      expect(res.status).toBe(201);
      issued.push(res.body.token);
      const redeemed = await post(a, '/v1/customers/reset-password', appToken, {
        token: res.body.token,
        password: NEW_PASSWORD,
      });
      statuses.push(redeemed.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(3);
  });

  it('no token the service issued appears in its logs', async () => {
    expect(issued.length).toBeGreaterThan(20);
    const text = logs.join('');
    expect(text.length).toBeGreaterThan(0);
    for (const token of issued) {
      expect(text).not.toContain(token);
      // Nor the signature or random part alone.
      expect(text).not.toContain(token.slice(-20));
    }
  });
});

describe('customer verify (CLI)', { timeout: processBudget(2) }, () => {
  it('verifies the email, links the earlier orders, writes the audit log', async () => {
    const t = await createTestApp({ WORKER: 'off' });
    try {
      const tenant = await newTenant(t);
      const product = await newProduct(t, tenant.id, 100);
      const token = await tokenFor(t, await newApp(t, tenant.id));
      const address = `cli-${randomBytes(4).toString('hex')}@example.com`;
      const order = await t.http
        .post('/v1/orders')
        .set('authorization', `Bearer ${token}`)
        .send({
          customer: { name: 'Ada', email: address },
          shipping_address: SHIPPING,
          items: [{ product_id: product, quantity: 1 }],
        });
      const customer = await t.http
        .post('/v1/customers/register')
        .set('authorization', `Bearer ${token}`)
        .send({ name: 'Ada', email: address, password: PASSWORD });

      const result = await runCli(
        [
          'customer',
          'verify',
          '--tenant',
          String(tenant.id),
          '--email',
          address.toUpperCase(),
          '--json',
        ],
        { DATABASE_URL: t.databaseUrl, DATA_DIR: t.config.DATA_DIR, LOG_LEVEL: 'silent' },
      );
      expect(result.status).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        customer: {
          id: customer.body.id,
          name: 'Ada',
          email: address,
          phone: null,
          email_verified: true,
        },
        linked_orders: 1,
      });
      const read = await t.http
        .get(`/v1/orders/${order.body.id}`)
        .set('authorization', `Bearer ${token}`);
      expect(read.body.customer.id).toBe(customer.body.id);
      const audit: Array<{ action: string; details: { linked_orders: number } }> =
        await t.dataSource.query(
          `SELECT action, details FROM audit_log WHERE action = 'customer.verify' AND target_id = $1`,
          [String(customer.body.id)],
        );
      expect(audit).toEqual([{ action: 'customer.verify', details: { linked_orders: 1 } }]);

      const unknown = await runCli(
        [
          'customer',
          'verify',
          '--tenant',
          String(tenant.id),
          '--email',
          'nobody@example.com',
          '--json',
        ],
        { DATABASE_URL: t.databaseUrl, DATA_DIR: t.config.DATA_DIR, LOG_LEVEL: 'silent' },
      );
      expect(unknown.status).toBe(1);
      expect(JSON.parse(unknown.stdout).error).toBe('not_found');
    } finally {
      await t.close();
    }
  });
});
