import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExactRateLimiter } from '../src/rate-limit/exact-rate-limiter.service.js';
import { SyncedRateLimiter } from '../src/rate-limit/synced-rate-limiter.service.js';
import { newApp, newTenant, tokenFor } from './support/factories.js';
import { sharedInstanceEnv } from './support/processes.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const TOKEN = '/builders/oauth/token';

/** Sends `n` failed client authentications claiming to come from `forwardedFor`. */
async function failures(t: TestApp, n: number, forwardedFor: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await t.http.post(TOKEN).set('x-forwarded-for', forwardedFor).send({
      grant_type: 'client_credentials',
      client_id: 'app_unknownclient',
      client_secret: 'cs_wrong',
      scope: 'orders:read',
    });
    statuses.push(res.status);
  }
  return statuses;
}

describe('TRUST_PROXY', () => {
  it('unset: X-Forwarded-For is ignored, so a client cannot pick the address it is counted under', async () => {
    const t = await createTestApp({ TOKEN_FAILURES_PER_ADDRESS: '3' });
    try {
      const statuses = [
        ...(await failures(t, 2, '203.0.113.1')),
        ...(await failures(t, 2, '203.0.113.2')),
      ];
      expect(statuses).toEqual([401, 401, 401, 429]);
    } finally {
      await t.close();
    }
  });

  it('a list of proxy addresses: X-Forwarded-For is believed only from them', async () => {
    const t = await createTestApp({ TOKEN_FAILURES_PER_ADDRESS: '3', TRUST_PROXY: '127.0.0.1' });
    try {
      expect(await failures(t, 3, '203.0.113.1')).toEqual([401, 401, 401]);
      // Another end client behind the trusted proxy has its own count.
      expect(await failures(t, 1, '203.0.113.2')).toEqual([401]);
      expect(await failures(t, 1, '203.0.113.1')).toEqual([429]);
    } finally {
      await t.close();
    }
  });

  it('a proxy list that does not include the peer: X-Forwarded-For is ignored', async () => {
    const t = await createTestApp({ TOKEN_FAILURES_PER_ADDRESS: '2', TRUST_PROXY: '10.0.0.0/8' });
    try {
      const statuses = [
        ...(await failures(t, 1, '203.0.113.1')),
        ...(await failures(t, 2, '203.0.113.2')),
      ];
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      await t.close();
    }
  });
});

describe('limits shared by instances', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    // Two instances on one database with the keys they must share (as behind a balancer).
    const shared = await sharedInstanceEnv('http://localhost:3000');
    const env = {
      ...shared,
      NODE_ENV: 'test',
      API_RATE_LIMIT_PER_TOKEN: '10',
      LOGIN_FAILURES_PER_EMAIL: '4',
    };
    a = await createTestApp(env, [], undefined, shared.DATABASE_URL);
    b = await createTestApp(env, [], undefined, shared.DATABASE_URL);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('the per-token request rate: hits on one instance count on the other after a sync', async () => {
    const tenant = await newTenant(a);
    const token = await tokenFor(a, await newApp(a, tenant.id, ['products:read']));
    const get = (t: TestApp) => t.http.get('/v1/products').set('authorization', `Bearer ${token}`);
    for (let i = 0; i < 6; i++) expect((await get(a)).status).toBe(200);
    await a.app.get(SyncedRateLimiter).sync();
    // B meets the token for the first time: admitted on its own count until its next sync.
    expect((await get(b)).status).toBe(200);
    await b.app.get(SyncedRateLimiter).sync();
    const onB = [];
    for (let i = 0; i < 4; i++) onB.push((await get(b)).status);
    expect(onB).toEqual([200, 200, 200, 429]);
    // And A learns of B's hits once B has reported them and A has read them back.
    await b.app.get(SyncedRateLimiter).sync();
    await a.app.get(SyncedRateLimiter).sync();
    expect((await get(a)).status).toBe(429);
  });

  it('two instances flooded at once admit at most instances × limit per window, and nothing once synced', async () => {
    // The documented bound (README, docs/SECURITY.md): each instance decides alone between
    // syncs, so N instances admit at most N × limit in a window. Not across a window edge.
    const windowMs = 60_000;
    const left = windowMs - (Date.now() % windowMs);
    if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
    const tenant = await newTenant(a);
    const token = await tokenFor(a, await newApp(a, tenant.id, ['products:read']));
    const get = (t: TestApp) =>
      t.http.get('/v1/products?limit=1').set('authorization', `Bearer ${token}`);
    const admitted: number[] = [];
    for (let wave = 0; wave < 4; wave++) {
      const statuses = await Promise.all(
        Array.from({ length: 30 }, (_, i) => get(i % 2 === 0 ? a : b)),
      ).then((answers) => answers.map((r) => r.status));
      expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
      admitted.push(statuses.filter((s) => s === 200).length);
      // Twice: in the first round each may read back before the other has reported.
      await Promise.all([a.app.get(SyncedRateLimiter).sync(), b.app.get(SyncedRateLimiter).sync()]);
      await Promise.all([a.app.get(SyncedRateLimiter).sync(), b.app.get(SyncedRateLimiter).sync()]);
    }
    const total = admitted.reduce((n, x) => n + x, 0);
    expect(total).toBeGreaterThanOrEqual(10);
    expect(total).toBeLessThanOrEqual(2 * 10);
    // Once both have reported and read back, the window is spent everywhere.
    expect(admitted.slice(1)).toEqual([0, 0, 0]);
  });

  it('failed logins for one email count across instances (exact, no sync needed)', async () => {
    const tenant = await newTenant(a);
    const token = await tokenFor(a, await newApp(a, tenant.id, ['customer:auth']));
    const login = (t: TestApp) =>
      t.http
        .post('/v1/customers/login')
        .set('authorization', `Bearer ${token}`)
        .send({ email: 'nobody@example.com', password: 'wrong password' });
    const statuses = [];
    for (const t of [a, b, a, b, a, b]) statuses.push((await login(t)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  });
});

describe('exact limits', () => {
  it('a refund after its window ended gives nothing to the next window', async () => {
    const t = await createTestApp();
    try {
      const limiter = t.app.get(ExactRateLimiter);
      const rule = { policy: 'refund-test', limit: 2, windowSeconds: 60 };
      await limiter.reserve(rule, 'k');
      // The window ends while the attempt is still being checked…
      await t.dataSource.query(`UPDATE rate_limits SET expire = 1 WHERE key LIKE 'refund-test:%'`);
      await limiter.refund(rule, 'k');
      const [row] = await t.dataSource.query(
        `SELECT points FROM rate_limits WHERE key LIKE 'refund-test:%'`,
      );
      expect(row.points).toBe(1);
      // …and the next window starts from zero, not below it: exactly the limit, then 429.
      await limiter.reserve(rule, 'k');
      await limiter.reserve(rule, 'k');
      await expect(limiter.reserve(rule, 'k')).rejects.toMatchObject({ code: 'rate_limited' });
    } finally {
      await t.close();
    }
  });
});
