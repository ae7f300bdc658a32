import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from './support/eventually.js';
import { newApp, newTenant, tokenFor, type TestClient } from './support/factories.js';
import type { TestApp } from './support/test-app.js';
import { twoInstances } from './support/two-instances.js';

const PASSWORD = 'correct horse battery staple';

interface Pair {
  token: string;
  refresh_token: string;
  refresh_expires_in: number;
}

/**
 * CONTRACT 3.6 "Refresh tokens": rotation, reuse detection ending the chain on every instance
 * (two instances on one database), concurrent use of one token, other apps and tenants,
 * lifetimes, and the ways a chain ends (logout, logout-all, password change, reset).
 */
describe('customer refresh tokens', () => {
  let a: TestApp;
  let b: TestApp;
  let tenantId: number;
  let client: TestClient;
  let appTokens: [string, string];
  let otherApp: string;
  let otherTenant: string;

  beforeAll(async () => {
    ({ a, b } = await twoInstances());
    tenantId = (await newTenant(a)).id;
    client = await newApp(a, tenantId);
    appTokens = [await tokenFor(a, client), await tokenFor(b, client)];
    otherApp = await tokenFor(a, await newApp(a, tenantId));
    otherTenant = await tokenFor(a, await newApp(a, (await newTenant(a)).id));
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const post = (path: string, body: object, bearer = appTokens[0], on: TestApp = a) =>
    on.http.post(path).set('authorization', `Bearer ${bearer}`).send(body);
  const refresh = (refreshToken: string, bearer = appTokens[0], on: TestApp = a) =>
    post('/v1/customers/token', { refresh_token: refreshToken }, bearer, on);
  const me = (session: string, on: TestApp = a) =>
    on.http.get('/v1/customers/me').set('authorization', `Bearer ${session}`);

  async function loggedIn(): Promise<Pair & { email: string }> {
    const email = `r-${randomBytes(4).toString('hex')}@example.com`;
    expect(
      (await post('/v1/customers/register', { name: 'Ada', email, password: PASSWORD })).status,
    ).toBe(201);
    const res = await post('/v1/customers/login', { email, password: PASSWORD });
    expect(res.status).toBe(200);
    return { ...(res.body as Pair), email };
  }

  const invalidGrant = (res: { status: number; body: { error?: string } }) =>
    expect([res.status, res.body.error]).toEqual([400, 'invalid_grant']);

  it('rotates: a new session and refresh token per use; the used one is spent', async () => {
    const login = await loggedIn();
    const first = await refresh(login.refresh_token);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 86400,
      scope: 'customer:read order:read',
      refresh_token: expect.stringMatching(/^rt_[A-Za-z0-9_-]{43}$/),
      refresh_expires_in: 7 * 86400,
      customer: expect.objectContaining({ email: login.email }),
    });
    expect(first.body.refresh_token).not.toBe(login.refresh_token);
    expect((await me(first.body.token)).status).toBe(200);
    const second = await refresh(first.body.refresh_token, appTokens[1], b);
    expect(second.status).toBe(200);
    expect((await me(second.body.token, a)).status).toBe(200);
    // The refresh token is stored only as an HMAC.
    const stored = await a.dataSource.query(
      'SELECT token_hash FROM customer_refresh_tokens WHERE tenant_id = $1',
      [tenantId],
    );
    const hex = Buffer.from(second.body.refresh_token).toString('hex');
    expect(
      stored.some((row: { token_hash: Buffer }) => row.token_hash.toString('hex').includes(hex)),
    ).toBe(false);
  });

  it('a used-up token presented again ends the whole chain on every instance within 1 s', async () => {
    const login = await loggedIn();
    const rotated = await refresh(login.refresh_token);
    const current = rotated.body as Pair;
    expect((await me(login.token, b)).status).toBe(200);
    expect((await me(current.token, b)).status).toBe(200);

    invalidGrant(await refresh(login.refresh_token)); // replayed by a thief
    invalidGrant(await refresh(current.refresh_token, appTokens[1], b));
    await within(1_000, async () => {
      const answers = await Promise.all([me(login.token, b), me(current.token, b)]);
      return answers.every((res) => res.status === 401);
    });
  });

  it('concurrent use of one refresh token yields at most one new pair', async () => {
    const login = await loggedIn();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        refresh(login.refresh_token, appTokens[i % 2], i % 2 ? b : a),
      ),
    );
    const ok = answers.filter((res) => res.status === 200);
    expect(ok.length).toBeLessThanOrEqual(1);
    for (const res of answers.filter((r) => r.status !== 200)) invalidGrant(res);
    // The reuse ended the chain: the one pair made is dead too.
    for (const res of ok) invalidGrant(await refresh(res.body.refresh_token));
  });

  it('another app or tenant gets invalid_grant and neither uses it up nor ends the chain', async () => {
    const login = await loggedIn();
    invalidGrant(await refresh(login.refresh_token, otherApp));
    invalidGrant(await refresh(login.refresh_token, otherTenant));
    const own = await refresh(login.refresh_token);
    expect(own.status).toBe(200);
    expect((await me(login.token)).status).toBe(200);
  });

  it('unknown, malformed and expired tokens are invalid_grant; a missing one is 400 validation_failed', async () => {
    invalidGrant(await refresh(`rt_${randomBytes(32).toString('base64url')}`));
    invalidGrant(await refresh('not-a-refresh-token'));
    const missing = await post('/v1/customers/token', {});
    expect([missing.status, missing.body.error]).toEqual([400, 'validation_failed']);
    const idle = await loggedIn();
    await a.dataSource.query(
      `UPDATE customer_refresh_chains SET idle_expires_at = now() - interval '1 second'
       WHERE tenant_id = $1 AND ended_at IS NULL AND idle_expires_at > now()`,
      [tenantId],
    );
    invalidGrant(await refresh(idle.refresh_token));
    const old = await loggedIn();
    await a.dataSource.query(
      `UPDATE customer_refresh_chains SET expires_at = now() - interval '1 second'
       WHERE tenant_id = $1 AND expires_at > now()`,
      [tenantId],
    );
    invalidGrant(await refresh(old.refresh_token));
  });

  it('logout ends its chain; logout-all ends every chain of the customer', async () => {
    const login = await loggedIn();
    const out = await a.http
      .post('/v1/customers/logout')
      .set('authorization', `Bearer ${login.token}`);
    expect(out.status).toBe(204);
    invalidGrant(await refresh(login.refresh_token));

    const one = await loggedIn();
    const two = await post('/v1/customers/login', { email: one.email, password: PASSWORD });
    const all = await a.http
      .post('/v1/customers/logout-all')
      .set('authorization', `Bearer ${one.token}`);
    expect(all.status).toBe(204);
    invalidGrant(await refresh(one.refresh_token));
    invalidGrant(await refresh(two.body.refresh_token));
  });

  it('a password change ends every chain; the changing session lives on, its refresh token does not', async () => {
    const one = await loggedIn();
    const two = await post('/v1/customers/login', { email: one.email, password: PASSWORD });
    const changed = await a.http
      .post('/v1/customers/me/password')
      .set('authorization', `Bearer ${one.token}`)
      .send({ current_password: PASSWORD, new_password: 'another long passphrase' });
    expect(changed.status).toBe(204);
    expect((await me(one.token)).status).toBe(200);
    invalidGrant(await refresh(one.refresh_token));
    invalidGrant(await refresh(two.body.refresh_token));
  });

  it('a refresh racing a password change: no 5xx, and no session of the chain outlives the change', async () => {
    for (let round = 0; round < 5; round++) {
      const login = await loggedIn();
      const [refreshed, changed] = await Promise.all([
        refresh(login.refresh_token, appTokens[1], b),
        a.http
          .post('/v1/customers/me/password')
          .set('authorization', `Bearer ${login.token}`)
          .send({ current_password: PASSWORD, new_password: `another long passphrase ${round}` }),
      ]);
      expect(changed.status).toBe(204);
      expect([200, 400]).toContain(refreshed.status);
      if (refreshed.status === 200) {
        const session = refreshed.body.token as string;
        await within(1_000, async () => (await me(session, a)).status === 401);
        invalidGrant(await refresh(refreshed.body.refresh_token));
      }
    }
  });

  it('takes its locks in the order of resets and changes (customer, then chain): no deadlock', async () => {
    const login = await loggedIn();
    const [{ id: customerId }] = await a.dataSource.query(
      `SELECT id::int FROM customers WHERE tenant_id = $1 AND email = $2`,
      [tenantId, login.email],
    );
    // A reset's transaction: the customer locked, then (below) its chains ended.
    const reset = a.dataSource.createQueryRunner();
    await reset.connect();
    await reset.startTransaction();
    try {
      await reset.query('SELECT 1 FROM customers WHERE tenant_id = $1 AND id = $2 FOR UPDATE', [
        tenantId,
        customerId,
      ]);
      // `then` sends it (a supertest request starts when awaited).
      const refreshed = refresh(login.refresh_token).then((res) => res);
      await within(5_000, async () => {
        const [{ waiting }] = await a.dataSource.query(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return waiting > 0;
      });
      await reset.query(
        `UPDATE customer_refresh_chains SET ended_at = now()
         WHERE tenant_id = $1 AND customer_id = $2 AND ended_at IS NULL`,
        [tenantId, customerId],
      );
      await reset.commitTransaction();
      const answer = await refreshed;
      expect([answer.status, answer.body.error]).toEqual([400, 'invalid_grant']);
    } finally {
      if (reset.isTransactionActive) await reset.rollbackTransaction();
      await reset.release();
    }
  });

  it('a session never outlives its chain; a replay after the chain expired still ends its sessions', async () => {
    const login = await loggedIn();
    await a.dataSource.query(
      `UPDATE customer_refresh_chains SET expires_at = now() + interval '100 seconds'
       WHERE tenant_id = $1 AND ended_at IS NULL AND expires_at > now() + interval '1 day'`,
      [tenantId],
    );
    const rotated = await refresh(login.refresh_token);
    expect(rotated.status).toBe(200);
    expect(rotated.body.expires_in).toBeLessThanOrEqual(100);
    expect(rotated.body.refresh_expires_in).toBeLessThanOrEqual(100);

    await a.dataSource.query(
      `UPDATE customer_refresh_chains SET expires_at = now() - interval '1 second'
       WHERE tenant_id = $1 AND expires_at > now() AND expires_at < now() + interval '200 seconds'`,
      [tenantId],
    );
    expect((await me(rotated.body.token)).status).toBe(200);
    invalidGrant(await refresh(login.refresh_token)); // the replay of a used token
    await within(1_000, async () => (await me(rotated.body.token, b)).status === 401);
  });

  it('a password reset ends every chain', async () => {
    const login = await loggedIn();
    const ticket = await post('/v1/customers/tickets', {
      type: 'password_reset',
      email: login.email,
    });
    expect(ticket.status).toBe(201);
    const reset = await post('/v1/customers/reset-password', {
      token: ticket.body.token,
      password: 'a brand new passphrase',
    });
    expect(reset.status).toBe(200);
    invalidGrant(await refresh(login.refresh_token));
  });
});
