import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppsService } from '../src/apps/apps.service.js';
import { newApp, newTenant, TEST_ADMIN, type TestClient } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const TOKEN = '/builders/oauth/token';
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe('POST /builders/oauth/token', () => {
  let t: TestApp;
  let client: TestClient;
  beforeAll(async () => {
    t = await createTestApp();
    const tenant = await newTenant(t);
    client = await newApp(t, tenant.id, ['orders:read', 'products:read']);
  });
  afterAll(() => t.close());

  const body = (extra: Record<string, unknown> = {}) => ({
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: client.clientSecret,
    scope: 'orders:read',
    ...extra,
  });

  function expectTokenHeaders(res: { headers: Record<string, string> }) {
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
  }

  describe('success', () => {
    it('JSON body, client_secret_post → 200 with the token response and no-store headers', async () => {
      const res = await t.http.post(TOKEN).send(body());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        access_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'orders:read',
      });
      expectTokenHeaders(res);
      expect(res.headers['ratelimit-policy']).toBe('"token-client";q=60;w=60');
      expect(res.headers.ratelimit).toMatch(/^"token-client";r=\d+;t=\d+$/);
    });

    it('form body, client_secret_post → 200', async () => {
      const res = await t.http
        .post(TOKEN)
        .type('form')
        .send(body({ scope: 'orders:read products:read' }));
      expect(res.status).toBe(200);
      expect(res.body.scope).toBe('orders:read products:read');
      expectTokenHeaders(res);
    });

    it('form body, client_secret_basic → 200', async () => {
      const res = await t.http
        .post(TOKEN)
        .set('authorization', basic(client.clientId, client.clientSecret))
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'products:read' });
      expect(res.status).toBe(200);
      expect(res.body.scope).toBe('products:read');
    });

    it('JSON body, client_secret_basic → 200', async () => {
      const res = await t.http
        .post(TOKEN)
        .set('authorization', basic(client.clientId, client.clientSecret))
        .send({ grant_type: 'client_credentials', scope: 'orders:read' });
      expect(res.status).toBe(200);
    });

    it('echoes the granted scope with duplicates collapsed and extra spaces ignored', async () => {
      const res = await t.http
        .post(TOKEN)
        .send(body({ scope: 'orders:read  products:read orders:read ' }));
      expect(res.status).toBe(200);
      expect(res.body.scope).toBe('orders:read products:read');
    });

    it('issues an ES256 JWT with kid and typ at+jwt, and its claims', async () => {
      const res = await t.http.post(TOKEN).send(body());
      const [header, payload] = (res.body.access_token as string)
        .split('.')
        .slice(0, 2)
        .map(
          (part) =>
            JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>,
        );
      expect(header).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: expect.any(String) });
      expect(payload).toMatchObject({
        iss: 'http://localhost:3000',
        aud: 'http://localhost:3000',
        sub: client.clientId,
        client_id: client.clientId,
        tid: client.app.tenantId,
        scope: 'orders:read',
        jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      expect((payload.exp as number) - (payload.iat as number)).toBe(3600);
    });
  });

  describe('errors, in the documented check order', () => {
    it('missing grant_type → 400 invalid_request', async () => {
      const res = await t.http.post(TOKEN).send(body({ grant_type: undefined }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid_request',
        error_description: 'grant_type is required',
      });
      expectTokenHeaders(res);
    });

    it('unsupported grant_type → 400 unsupported_grant_type, checked before the credentials', async () => {
      const res = await t.http.post(TOKEN).send({ grant_type: 'password', scope: 'orders:read' });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('unsupported_grant_type');
    });

    it.each([['client_id'], ['client_secret']])(
      'missing %s → 400 invalid_request',
      async (field) => {
        const res = await t.http.post(TOKEN).send(body({ [field]: undefined }));
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          error: 'invalid_request',
          error_description: `${field} is required`,
        });
      },
    );

    it('credentials in both body and Basic header → 400 invalid_request', async () => {
      const res = await t.http
        .post(TOKEN)
        .set('authorization', basic(client.clientId, client.clientSecret))
        .send(body());
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    });

    it('missing credentials are reported before a bad scope', async () => {
      const res = await t.http
        .post(TOKEN)
        .send({ grant_type: 'client_credentials', scope: 'nope' });
      expect(res.body.error).toBe('invalid_request');
    });

    it('unknown client_id → 401 invalid_client (no Basic challenge for client_secret_post)', async () => {
      const res = await t.http.post(TOKEN).send(body({ client_id: 'app_unknown' }));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        error: 'invalid_client',
        error_description: 'Client authentication failed',
      });
      expect(res.headers['www-authenticate']).toBeUndefined();
      expectTokenHeaders(res);
    });

    it('wrong secret → 401 invalid_client, checked before the scope', async () => {
      const res = await t.http
        .post(TOKEN)
        .send(body({ client_secret: `${client.clientSecret}x`, scope: 'not-a-scope' }));
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    });

    it('wrong secret with Basic → 401 invalid_client with WWW-Authenticate: Basic realm="oauth"', async () => {
      const res = await t.http
        .post(TOKEN)
        .set('authorization', basic(client.clientId, 'wrong'))
        .send({ grant_type: 'client_credentials', scope: 'orders:read' });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
      expect(res.headers['www-authenticate']).toBe('Basic realm="oauth"');
    });

    it('inactive app → 401 invalid_client', async () => {
      const tenant = await newTenant(t);
      const other = await newApp(t, tenant.id, ['orders:read']);
      await t.app.get(AppsService).setActive(TEST_ADMIN, other.clientId, false);
      const res = await t.http.post(TOKEN).send({
        grant_type: 'client_credentials',
        client_id: other.clientId,
        client_secret: other.clientSecret,
        scope: 'orders:read',
      });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    });

    it.each([[undefined], [''], ['   ']])(
      'missing scope (%j) → 400 invalid_request, after authentication',
      async (scope) => {
        const res = await t.http.post(TOKEN).send(body({ scope }));
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          error: 'invalid_request',
          error_description: 'scope is required',
        });
      },
    );

    it.each([['orders:write'], ['orders:read orders:write'], ['made:up']])(
      'scope %s not approved → 400 invalid_scope',
      async (scope) => {
        const res = await t.http.post(TOKEN).send(body({ scope }));
        expect(res.status).toBe(400);
        expect(Object.keys(res.body).sort()).toEqual(['error', 'error_description']);
        expect(res.body.error).toBe('invalid_scope');
        expect(res.body.error_description).toMatch(/is not approved for the app/);
      },
    );

    it('malformed JSON → 400 invalid_request', async () => {
      const res = await t.http
        .post(TOKEN)
        .set('content-type', 'application/json')
        .send('{"grant_type":');
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    });

    it('a repeated form parameter → 400 invalid_request', async () => {
      const res = await t.http
        .post(TOKEN)
        .type('form')
        .send(
          `grant_type=client_credentials&client_id=${client.clientId}&client_id=x&client_secret=s&scope=orders:read`,
        );
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    });

    it('text/plain body → 415', async () => {
      const res = await t.http
        .post(TOKEN)
        .set('content-type', 'text/plain')
        .send('grant_type=client_credentials');
      expect(res.status).toBe(415);
      expect(res.body.error).toBe('unsupported_media_type');
    });
  });

  it('the database holds no plain secret', async () => {
    const rows: Array<{ row: string }> = await t.dataSource.query(
      `SELECT row_to_json(a)::text AS row FROM apps a
       UNION ALL SELECT row_to_json(l)::text FROM audit_log l
       UNION ALL SELECT row_to_json(k)::text FROM app_tokens k`,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const { row } of rows) expect(row).not.toContain(client.clientSecret.slice(3, 40));
    const [stored] = await t.dataSource.query(
      'SELECT secret_last4 FROM apps WHERE client_id = $1',
      [client.clientId],
    );
    expect(stored.secret_last4).toBe(client.clientSecret.slice(-4));
  });
});

describe('token endpoint rate limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    // One proxy hop: tests choose the caller address with X-Forwarded-For.
    t = await createTestApp({
      TOKEN_RATE_LIMIT_PER_CLIENT: '3',
      TOKEN_FAILURES_PER_ADDRESS: '5',
      TRUST_PROXY: '1',
    });
  });
  afterAll(() => t.close());

  const request = (c: TestClient, secret = c.clientSecret, from = '198.51.100.1') =>
    t.http.post(TOKEN).set('x-forwarded-for', from).send({
      grant_type: 'client_credentials',
      client_id: c.clientId,
      client_secret: secret,
      scope: 'orders:read',
    });

  it('per client: the 4th token in a minute → 429 rate_limited with Retry-After; another client is unaffected', async () => {
    const tenant = await newTenant(t);
    const a = await newApp(t, tenant.id, ['orders:read']);
    const b = await newApp(t, tenant.id, ['orders:read']);
    for (let i = 0; i < 3; i++) expect((await request(a)).status).toBe(200);
    const limited = await request(a);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers['ratelimit-policy']).toBe('"token-client";q=3;w=60');
    expect(limited.headers.ratelimit).toMatch(/^"token-client";r=0;t=\d+$/);
    expect((await request(b)).status).toBe(200);
  });

  it('failures per address: beyond the limit they answer 429, other addresses still 401', async () => {
    const tenant = await newTenant(t);
    const app = await newApp(t, tenant.id, ['orders:read']);
    const from = '198.51.100.20';
    for (let i = 0; i < 5; i++) expect((await request(app, 'cs_wrong', from)).status).toBe(401);
    const limited = await request(app, 'cs_wrong', from);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers['ratelimit-policy']).toBe('"token-failures";q=5;w=60');
    expect((await request(app, 'cs_wrong', '198.51.100.21')).status).toBe(401);
  });

  it('strangers who know a client_id cannot block its tokens: 100 concurrent wrong secrets, then the right one → 200', async () => {
    const tenant = await newTenant(t);
    const victim = await newApp(t, tenant.id, ['orders:read']);
    const attack = await Promise.all(
      Array.from({ length: 100 }, (_, i) => request(victim, `cs_guess${i}`, `203.0.113.${i % 3}`)),
    );
    expect(new Set(attack.map((r) => r.status))).toEqual(new Set([401, 429]));
    // From an attacking address too: the correct secret always gets its token.
    expect((await request(victim, victim.clientSecret, '203.0.113.0')).status).toBe(200);
    expect((await request(victim, victim.clientSecret, '198.51.100.99')).status).toBe(200);
  });

  it('a malformed client_id is invalid_client at once and counts against nothing', async () => {
    const from = '198.51.100.40';
    for (const clientId of ['x', 'app_', `app_${'a'.repeat(61)}`, 'app_a b', 'APP_abc', 'app_é']) {
      const res = await t.http.post(TOKEN).set('x-forwarded-for', from).send({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: 'cs_x',
        scope: 'orders:read',
      });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    }
    const tenant = await newTenant(t);
    const app = await newApp(t, tenant.id, ['orders:read']);
    expect((await request(app, 'cs_wrong', from)).status).toBe(401);
  });

  it('bodies over 4 KiB → 413 before they are read, even 50 at once of 1 MiB', async () => {
    const huge = JSON.stringify({
      grant_type: 'client_credentials',
      client_id: 'a'.repeat(1024 * 1024),
      client_secret: 's',
      scope: 'orders:read',
    });
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.http.post(TOKEN).set('content-type', 'application/json').send(huge),
      ),
    );
    for (const res of responses) {
      expect(res.status).toBe(413);
      expect(res.body.error).toBe('payload_too_large');
      expect(res.headers['x-request-id']).toBeTruthy();
    }
    const form = await t.http
      .post(TOKEN)
      .type('form')
      .send(`grant_type=client_credentials&client_id=${'a'.repeat(5000)}`);
    expect(form.status).toBe(413);
  });
});
