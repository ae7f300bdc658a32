import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from './support/eventually.js';
import { AppsService } from '../src/apps/apps.service.js';
import { newApp, newTenant, TEST_ADMIN, tokenFor, type TestClient } from './support/factories.js';
import type { TestApp } from './support/test-app.js';
import { twoInstances } from './support/two-instances.js';

const REVOKE = '/builders/oauth/revoke';
const INTROSPECT = '/builders/oauth/introspect';
const PASSWORD = 'correct horse battery staple';
/** Failed client authentications per address and minute, for the last test. */
const FAILURE_LIMIT = 12;

/** A header saying `typ: JWT` over a payload that is not JSON: the JWT library throws on it. */
const JSON_TYP_GARBAGE = `${Buffer.from('{"typ":"JWT","alg":"ES256"}').toString('base64url')}.${Buffer.from('notjson').toString('base64url')}.x`;

const basic = (client: TestClient) =>
  `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;

type Style = 'json-post' | 'form-post' | 'json-basic' | 'form-basic';
const STYLES: Style[] = ['json-post', 'form-post', 'json-basic', 'form-basic'];

interface Login {
  token: string;
  refresh_token: string;
  customer: { id: number };
}

/**
 * CONTRACT 3.1: RFC 7009 revocation and RFC 7662 introspection, with the token endpoint's client
 * authentication (Basic or body) and body formats (JSON or form), on two instances of one
 * deployment. Only the caller's own tokens are revoked or introspected as active.
 */
describe('POST /builders/oauth/revoke and /builders/oauth/introspect', () => {
  let a: TestApp;
  let b: TestApp;
  let tenantId: number;
  let mine: TestClient;
  let sibling: TestClient;
  let stranger: TestClient;

  beforeAll(async () => {
    ({ a, b } = await twoInstances({ TOKEN_FAILURES_PER_ADDRESS: String(FAILURE_LIMIT) }));
    tenantId = (await newTenant(a)).id;
    mine = await newApp(a, tenantId);
    sibling = await newApp(a, tenantId);
    stranger = await newApp(a, (await newTenant(a)).id);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  function call(
    path: string,
    client: TestClient,
    token: string,
    style: Style = 'json-post',
    on: TestApp = a,
  ) {
    const request = on.http.post(path);
    const params: Record<string, string> = { token };
    if (style.endsWith('basic')) void request.set('authorization', basic(client));
    else Object.assign(params, { client_id: client.clientId, client_secret: client.clientSecret });
    if (style.startsWith('form')) void request.type('form');
    return request.send(params);
  }
  const revoke = (client: TestClient, token: string, style?: Style, on?: TestApp) =>
    call(REVOKE, client, token, style, on);
  const introspect = (client: TestClient, token: string, style?: Style, on?: TestApp) =>
    call(INTROSPECT, client, token, style, on);
  const orders = (token: string, on: TestApp = a) =>
    on.http.get('/v1/orders').set('authorization', `Bearer ${token}`);
  const me = (session: string, on: TestApp = a) =>
    on.http.get('/v1/customers/me').set('authorization', `Bearer ${session}`);
  const refresh = (appToken: string, refreshToken: string) =>
    a.http
      .post('/v1/customers/token')
      .set('authorization', `Bearer ${appToken}`)
      .send({ refresh_token: refreshToken });

  async function login(appToken: string): Promise<Login> {
    const email = `o-${randomBytes(4).toString('hex')}@example.com`;
    const auth = { authorization: `Bearer ${appToken}` };
    const registered = await a.http
      .post('/v1/customers/register')
      .set(auth)
      .send({ name: 'Ada', email, password: PASSWORD });
    expect(registered.status).toBe(201);
    const res = await a.http
      .post('/v1/customers/login')
      .set(auth)
      .send({ email, password: PASSWORD });
    expect(res.status).toBe(200);
    return res.body as Login;
  }

  /** Refused on the other instance within 1 s of the revocation's answer. */
  async function refusedOnB(probe: (on: TestApp) => Promise<{ status: number }>) {
    await within(1000, async () => (await probe(b)).status === 401);
    expect((await probe(a)).status).toBe(401);
  }

  it('are listed in the RFC 8414 metadata', async () => {
    const res = await a.http.get('/.well-known/oauth-authorization-server');
    expect(res.body).toMatchObject({
      revocation_endpoint: `${a.config.publicUrl}/builders/oauth/revoke`,
      introspection_endpoint: `${a.config.publicUrl}/builders/oauth/introspect`,
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    });
  });

  describe('introspection', () => {
    it.each(STYLES)('an own app token is active (%s), never cached', async (style) => {
      const token = await tokenFor(a, mine, 'orders:read');
      const res = await introspect(mine, token, style);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as {
        jti: string;
        iat: number;
      };
      expect(res.body).toEqual({
        active: true,
        scope: 'orders:read',
        client_id: mine.clientId,
        token_type: 'Bearer',
        exp: claims.iat + 3600,
        iat: claims.iat,
        sub: mine.clientId,
        jti: claims.jti,
      });
    });

    it("another app's token, of the same tenant or another, is not active for the caller", async () => {
      for (const other of [sibling, stranger]) {
        const token = await tokenFor(a, other, 'orders:read');
        const res = await introspect(mine, token);
        expect([res.status, res.body]).toEqual([200, { active: false }]);
        expect((await introspect(other, token)).body.active).toBe(true);
      }
    });

    it('anything that is not a live token is {active: false}', async () => {
      const garbage = [
        'x',
        'rt_' + 'A'.repeat(43),
        'a.b.c',
        (await tokenFor(a, mine, 'orders:read')).slice(0, -4) + 'AAAA',
        'é'.repeat(100),
        JSON_TYP_GARBAGE,
      ];
      for (const token of garbage) {
        const res = await introspect(mine, token, 'form-basic');
        expect([token, res.status, res.body]).toEqual([token, 200, { active: false }]);
      }
    });

    it("a customer session of the caller's login is active, with the customer as subject", async () => {
      const session = await login(await tokenFor(a, mine));
      const res = await introspect(mine, session.token, 'json-basic');
      expect(res.body).toEqual({
        active: true,
        scope: 'customer:read order:read',
        client_id: mine.clientId,
        token_type: 'Bearer',
        exp: expect.any(Number),
        iat: expect.any(Number),
        sub: String(session.customer.id),
        jti: expect.any(String),
      });
      expect(res.body.exp - res.body.iat).toBe(86400);
      expect((await introspect(sibling, session.token)).body).toEqual({ active: false });
    });

    it('a refresh token is active until it is used up; the chain’s end is its expiry', async () => {
      const appToken = await tokenFor(a, mine);
      const session = await login(appToken);
      const res = await introspect(mine, session.refresh_token, 'form-post');
      expect(res.body).toEqual({
        active: true,
        scope: 'customer:read order:read',
        client_id: mine.clientId,
        token_type: 'Bearer',
        exp: expect.any(Number),
        iat: expect.any(Number),
        sub: String(session.customer.id),
        jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      });
      expect(res.body.exp - res.body.iat).toBe(7 * 86400);
      expect((await introspect(sibling, session.refresh_token)).body).toEqual({ active: false });
      expect((await introspect(stranger, session.refresh_token)).body).toEqual({ active: false });

      const next = await refresh(appToken, session.refresh_token);
      expect(next.status).toBe(200);
      expect((await introspect(mine, session.refresh_token)).body).toEqual({ active: false });
      const fresh = await introspect(mine, next.body.refresh_token as string);
      expect(fresh.body.active).toBe(true);
      expect(fresh.body.jti).not.toBe(res.body.jti);
    });
  });

  it('token_type_hint is accepted and never needed, even when it is wrong', async () => {
    const session = await login(await tokenFor(a, mine));
    for (const [token, hint] of [
      [session.refresh_token, 'access_token'],
      [session.token, 'refresh_token'],
      [session.token, 'something_else'],
    ]) {
      const res = await a.http
        .post(INTROSPECT)
        .set('authorization', basic(mine))
        .type('form')
        .send({
          token,
          token_type_hint: hint,
        });
      expect([hint, res.status, res.body.active]).toEqual([hint, 200, true]);
    }
  });

  describe('revocation', () => {
    it.each(STYLES)(
      'an own app token: 200 with an empty body, refused on every instance within 1 s (%s)',
      async (style) => {
        const token = await tokenFor(a, mine, 'orders:read');
        expect((await orders(token, b)).status).toBe(200);
        const res = await revoke(mine, token, style);
        expect(res.status).toBe(200);
        expect(res.text).toBe('');
        expect(res.headers['cache-control']).toBe('no-store');
        await refusedOnB((on) => orders(token, on));
        expect((await introspect(mine, token)).body).toEqual({ active: false });
        // Again: the same answer, nothing new.
        expect([(await revoke(mine, token, style)).status]).toEqual([200]);
      },
    );

    it('an own app token is recorded as revoked by the app, with one token.revoked event', async () => {
      const token = await tokenFor(a, mine, 'orders:read');
      const jti = (
        JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { jti: string }
      ).jti;
      await revoke(mine, token);
      await revoke(mine, token);
      const audit: unknown[] = await a.dataSource.query(
        "SELECT actor FROM audit_log WHERE action = 'app.revoke_token' AND target_id = $1",
        [jti],
      );
      expect(audit).toEqual([{ actor: `app:${mine.clientId}` }]);
      const events: unknown[] = await a.dataSource.query(
        "SELECT data->'object'->>'client_id' AS client_id FROM events WHERE type = 'token.revoked' AND data->'object'->>'id' = $1",
        [jti],
      );
      expect(events).toEqual([{ client_id: mine.clientId }]);
    });

    it("another app's token is neither revoked nor answered differently", async () => {
      for (const other of [sibling, stranger]) {
        const token = await tokenFor(a, other, 'orders:read');
        const res = await revoke(mine, token, 'form-basic');
        expect([res.status, res.text]).toEqual([200, '']);
        expect((await orders(token, b)).status).toBe(200);
        expect((await orders(token, a)).status).toBe(200);
        expect((await introspect(other, token)).body.active).toBe(true);
      }
    });

    it('unknown and malformed tokens: 200 with an empty body', async () => {
      for (const token of ['x', 'rt_' + 'B'.repeat(43), 'a.b.c', '{"a":1}']) {
        const res = await revoke(mine, token);
        expect([token, res.status, res.text]).toEqual([token, 200, '']);
      }
    });

    it('a customer session token: that session ends on every instance, its refresh chain lives', async () => {
      const appToken = await tokenFor(a, mine);
      const session = await login(appToken);
      expect((await revoke(sibling, session.token)).status).toBe(200);
      expect((await me(session.token, a)).status).toBe(200);
      expect((await introspect(mine, session.token)).body.active).toBe(true);

      expect((await revoke(mine, session.token, 'json-basic')).status).toBe(200);
      await refusedOnB((on) => me(session.token, on));
      const next = await refresh(appToken, session.refresh_token);
      expect(next.status).toBe(200);
      expect((await me(next.body.token as string, b)).status).toBe(200);
    });

    it('a refresh token: its whole chain ends, every session of it on every instance', async () => {
      const appToken = await tokenFor(a, mine);
      const session = await login(appToken);
      const next = await refresh(appToken, session.refresh_token);
      const current = next.body as Login;

      // Another app (or tenant) presenting it changes nothing.
      for (const other of [sibling, stranger]) {
        expect((await revoke(other, current.refresh_token, 'form-post')).status).toBe(200);
      }
      expect((await introspect(mine, current.refresh_token)).body.active).toBe(true);

      // The used-up token of the chain ends it as well as the current one would.
      const res = await revoke(mine, session.refresh_token, 'form-post');
      expect([res.status, res.text]).toEqual([200, '']);
      await refusedOnB((on) => me(current.token, on));
      expect((await me(session.token, b)).status).toBe(401);
      const refused = await refresh(appToken, current.refresh_token);
      expect([refused.status, refused.body.error]).toEqual([400, 'invalid_grant']);
      expect((await introspect(mine, current.refresh_token)).body).toEqual({ active: false });
    });
  });

  describe('requests refused', () => {
    it('a token the JWT library cannot parse is refused as malformed by any bearer route', async () => {
      const res = await orders(JSON_TYP_GARBAGE);
      expect([res.status, res.body.error]).toEqual([401, 'unauthenticated']);
    });

    it.each([REVOKE, INTROSPECT])('%s: the token endpoint’s client errors', async (path) => {
      // Client authentication comes first (RFC 7009 2.1), then the token.
      const unauthenticated = await a.http
        .post(path)
        .send({ client_id: mine.clientId, client_secret: 'cs_wrong' });
      expect([unauthenticated.status, unauthenticated.body.error]).toEqual([401, 'invalid_client']);

      const missing = await a.http
        .post(path)
        .send({ client_id: mine.clientId, client_secret: mine.clientSecret });
      expect([missing.status, missing.body.error]).toEqual([400, 'invalid_request']);

      const noClient = await a.http.post(path).send({ token: 'x' });
      expect([noClient.status, noClient.body.error]).toEqual([400, 'invalid_request']);

      const repeated = await a.http
        .post(path)
        .type('form')
        .send(`token=a&token=b&client_id=${mine.clientId}&client_secret=${mine.clientSecret}`);
      expect([repeated.status, repeated.body.error]).toEqual([400, 'invalid_request']);

      const wrongBasic = await a.http
        .post(path)
        .set('authorization', basic({ ...mine, clientSecret: 'cs_wrong' }))
        .send({ token: 'x' });
      expect([wrongBasic.status, wrongBasic.body.error]).toEqual([401, 'invalid_client']);
      expect(wrongBasic.headers['www-authenticate']).toBe('Basic realm="oauth"');

      const malformedId = await a.http
        .post(path)
        .send({ token: 'x', client_id: 'nope', client_secret: mine.clientSecret });
      expect([malformedId.status, malformedId.body.error]).toEqual([401, 'invalid_client']);

      const xml = await a.http
        .post(path)
        .set('content-type', 'application/xml')
        .send('<token>x</token>');
      expect([xml.status, xml.body.error]).toEqual([415, 'unsupported_media_type']);

      const large = await a.http.post(path).send({
        token: 'x'.repeat(5000),
        client_id: mine.clientId,
        client_secret: mine.clientSecret,
      });
      expect([large.status, large.body.error]).toEqual([413, 'payload_too_large']);
    });

    it('a deactivated app authenticates no more; its tokens are not active', async () => {
      const soon = await newApp(a, tenantId, ['orders:read']);
      const token = await tokenFor(a, soon, 'orders:read');
      await a.app.get(AppsService).setActive(TEST_ADMIN, soon.clientId, false);
      const res = await introspect(soon, token);
      expect([res.status, res.body.error]).toEqual([401, 'invalid_client']);
      await a.app.get(AppsService).setActive(TEST_ADMIN, soon.clientId, true);
      // Deactivation bumped the credentials version: the old token died with it.
      expect((await introspect(soon, token)).body).toEqual({ active: false });
    });

    it('each client is limited like the token endpoint, on its own bucket per endpoint', async () => {
      const busy = await newApp(a, tenantId, ['orders:read']);
      const limit = a.config.TOKEN_RATE_LIMIT_PER_CLIENT;
      for (let i = 0; i < limit; i++) {
        expect((await introspect(busy, 'x')).status).toBe(200);
      }
      const limited = await introspect(busy, 'x');
      expect([limited.status, limited.body.error]).toEqual([429, 'rate_limited']);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.headers['ratelimit-policy']).toBe(`"introspect-client";q=${limit};w=60`);
      // Revocation and issuance have buckets of their own; another client is untouched.
      expect((await revoke(busy, 'x')).status).toBe(200);
      expect((await tokenFor(a, busy, 'orders:read')).length).toBeGreaterThan(0);
      expect((await introspect(mine, 'x')).status).toBe(200);
    });

    it('failed client authentications count per address, as at the token endpoint; the right secret still passes', async () => {
      const wrong = { ...mine, clientSecret: 'cs_wrong' };
      const statuses: number[] = [];
      let retryAfter: string | undefined;
      while (statuses.at(-1) !== 429 && statuses.length <= FAILURE_LIMIT) {
        const res = await introspect(wrong, 'x', statuses.length % 2 ? 'form-basic' : 'json-post');
        statuses.push(res.status);
        retryAfter = res.headers['retry-after'];
      }
      // Earlier tests of this file failed a few times from this address within the minute.
      expect(new Set(statuses.slice(0, -1))).toEqual(new Set([401]));
      expect(statuses.at(-1)).toBe(429);
      expect(Number(retryAfter)).toBeGreaterThan(0);
      const token = await a.http.post('/builders/oauth/token').send({
        grant_type: 'client_credentials',
        client_id: wrong.clientId,
        client_secret: wrong.clientSecret,
        scope: 'orders:read',
      });
      expect(token.status).toBe(429);
      expect((await introspect(mine, 'x')).status).toBe(200);
    });
  });
});
