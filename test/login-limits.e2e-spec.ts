import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PasswordHasher } from '../src/customers/password-hasher.js';
import { within } from './support/eventually.js';
import { newApp, newTenant, tokenFor } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const PASSWORD = 'correct horse battery staple';
const PER_EMAIL = 10;
const PER_CUSTOMER_IP = 5;
const REGISTRATIONS_PER_IP = 3;

/**
 * The customer limits (docs/BEHAVIOUR.md#rate-limits), tried as an attacker would: nobody can lock
 * out other customers, a concurrent burst cannot try more passwords than the limit, and refused
 * attempts cost no argon2.
 */
describe('login and registration limits', () => {
  let t: TestApp;
  let hasher: PasswordHasher;
  const tenants: Array<{ id: number; token: string }> = [];

  beforeAll(async () => {
    t = await createTestApp({
      LOGIN_FAILURES_PER_EMAIL: String(PER_EMAIL),
      LOGIN_FAILURES_PER_CUSTOMER_IP: String(PER_CUSTOMER_IP),
      REGISTRATIONS_PER_CUSTOMER_IP: String(REGISTRATIONS_PER_IP),
    });
    hasher = t.app.get(PasswordHasher, { strict: false });
    for (let i = 0; i < 2; i++) {
      const tenant = await newTenant(t);
      const app = await newApp(t, tenant.id, ['customer:auth', 'customer:read']);
      tenants.push({ id: tenant.id, token: await tokenFor(t, app) });
    }
  });
  afterAll(() => t.close());

  const email = () => `c-${randomBytes(5).toString('hex')}@example.com`;
  const post = (path: string, body: object, token: string, customerIp?: string) => {
    const req = t.http.post(path).set('authorization', `Bearer ${token}`);
    if (customerIp !== undefined) void req.set('x-customer-ip', customerIp);
    return req.send(body);
  };
  const register = (address: string, token = tenants[0].token, ip?: string) =>
    post('/v1/customers/register', { name: 'Ada', email: address, password: PASSWORD }, token, ip);
  const login = (address: string, password: string, token = tenants[0].token, ip?: string) =>
    post('/v1/customers/login', { email: address, password }, token, ip);

  async function customer(token = tenants[0].token): Promise<string> {
    const address = email();
    expect((await register(address, token)).status).toBe(201);
    return address;
  }

  it('failures from the app server address never lock out other customers, in any tenant', async () => {
    const victims = [await customer(tenants[0].token), await customer(tenants[1].token)];
    // 120 wrong passwords over 60 emails, all from the storefront backend's one address.
    for (let i = 0; i < 60; i++) {
      const address = email();
      expect((await login(address, 'wrong password 1')).status).toBe(401);
      expect((await login(address, 'wrong password 2')).status).toBe(401);
    }
    expect((await login(victims[0], PASSWORD, tenants[0].token)).status).toBe(200);
    expect((await login(victims[1], PASSWORD, tenants[1].token)).status).toBe(200);
  });

  it('per (tenant, X-Customer-IP): beyond the limit → 429 for that address only', async () => {
    const victim = await customer();
    const attacker = '203.0.113.50';
    for (let i = 0; i < PER_CUSTOMER_IP; i++) {
      expect((await login(email(), 'wrong password', undefined, attacker)).status).toBe(401);
    }
    const limited = await login(victim, PASSWORD, undefined, attacker);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('rate_limited');
    expect(limited.headers['ratelimit-policy']).toBe(
      `"login-customer-ip";q=${PER_CUSTOMER_IP};w=900`,
    );
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another address, the same address in another tenant, and a malformed header all pass.
    expect((await login(victim, PASSWORD, undefined, '203.0.113.51')).status).toBe(200);
    const other = await customer(tenants[1].token);
    expect((await login(other, PASSWORD, tenants[1].token, attacker)).status).toBe(200);
    expect((await login(victim, PASSWORD, undefined, 'not-an-address')).status).toBe(200);
  });

  it('IPv6 customer addresses are counted per /64', async () => {
    for (let i = 0; i < PER_CUSTOMER_IP; i++) {
      const address = `2001:db8:77:1::${i + 1}`;
      expect((await login(email(), 'wrong password', undefined, address)).status).toBe(401);
    }
    const rotated = await login(email(), 'wrong password', undefined, '2001:db8:77:1:ffff::9');
    expect(rotated.status).toBe(429);
  });

  it.each([20, 60, 100, 140])(
    'a burst of 200 concurrent logins for one email verifies only the limit (right password at %i)',
    async (position) => {
      const victim = await customer();
      const verify = vi.spyOn(hasher, 'verify');
      const attempts = Array.from({ length: 200 }, (_, i) =>
        login(victim, i === position ? PASSWORD : `guess number ${i}`),
      );
      const statuses = (await Promise.all(attempts)).map((r) => r.status);
      const verified = verify.mock.calls.length;
      verify.mockRestore();
      expect(statuses[position]).toBe(429);
      expect(statuses.filter((s) => s === 401)).toHaveLength(PER_EMAIL);
      expect(statuses.filter((s) => s === 429)).toHaveLength(200 - PER_EMAIL);
      // Refused attempts cost no argon2 verification.
      expect(verified).toBe(PER_EMAIL);
    },
  );

  it('a successful login hands its attempt back; failures keep counting', async () => {
    const victim = await customer();
    for (let i = 0; i < PER_EMAIL - 1; i++) {
      expect((await login(victim, 'wrong password')).status).toBe(401);
    }
    expect((await login(victim, PASSWORD)).status).toBe(200);
    expect((await login(victim, 'wrong password')).status).toBe(401);
    expect((await login(victim, PASSWORD)).status).toBe(429);
  });

  it('registrations per (tenant, X-Customer-IP): beyond the limit → 429; other addresses unaffected', async () => {
    const ip = '198.51.100.77';
    for (let i = 0; i < REGISTRATIONS_PER_IP; i++) {
      expect((await register(email(), undefined, ip)).status).toBe(201);
    }
    const limited = await register(email(), undefined, ip);
    expect(limited.status).toBe(429);
    expect(limited.headers['ratelimit-policy']).toBe(
      `"register-customer-ip";q=${REGISTRATIONS_PER_IP};w=3600`,
    );
    expect((await register(email(), undefined, '198.51.100.78')).status).toBe(201);
    expect((await register(email(), tenants[1].token, ip)).status).toBe(201);
  });

  it('a taken email is answered before any argon2 work', async () => {
    const taken = await customer();
    const hash = vi.spyOn(hasher, 'hash');
    const res = await register(taken.toUpperCase());
    const hashed = hash.mock.calls.length;
    hash.mockRestore();
    expect(res.status).toBe(409);
    expect(hashed).toBe(0);
  });

  it('a burst of registrations is bounded and cannot starve logins', async () => {
    const known = await customer();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const realHash = hasher.hash.bind(hasher);
    const hash = vi.spyOn(hasher, 'hash').mockImplementation(async (password) => {
      await gate;
      return realHash(password);
    });
    // One app holds at most 4 places of the hashing lane (1 hashing, 3 waiting); the rest of
    // its burst is refused at once. supertest sends on `then`: start them all now.
    const burst = Array.from({ length: 30 }, () => register(email()).then((r) => r));
    await within(5_000, async () => hash.mock.calls.length >= 1);
    // While that app's registrations are stuck, another tenant's registration still queues
    // (the lane has room beyond one app's share), and logins go through their own lane.
    const other = register(email(), tenants[1].token).then((r) => r);
    expect((await login(known, PASSWORD)).status).toBe(200);
    release();
    const statuses = (await Promise.all(burst)).map((r) => r.status);
    expect((await other).status).toBe(201);
    hash.mockRestore();
    expect(statuses.filter((s) => s === 201)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(26);
  });
});
