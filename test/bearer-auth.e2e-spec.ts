import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokenIssuer } from '../src/auth/access-token-issuer.service.js';
import { TOKEN_TYPES } from '../src/auth/request-context.js';
import { SigningKeys } from '../src/auth/signing-keys.js';
import type { TokenClaims } from '../src/auth/token-claims.js';
import { newApp, newProduct, newTenant, tokenFor, type TestClient } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('bearer authentication and scopes', () => {
  let t: TestApp;
  let client: TestClient;
  let token: string;
  let claims: TokenClaims;
  let kid: string;

  beforeAll(async () => {
    t = await createTestApp();
    const tenant = await newTenant(t);
    client = await newApp(t, tenant.id, ['products:read', 'orders:read']);
    token = await tokenFor(t, client);
    claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as TokenClaims;
    kid = t.app.get(SigningKeys).currentKid;
  });
  afterAll(() => t.close());

  const products = (authorization?: string) => {
    const req = t.http.get('/v1/products');
    return authorization === undefined ? req : req.set('authorization', authorization);
  };

  it('a valid token reaches the resource', async () => {
    const res = await products(`Bearer ${token}`);
    expect(res.status).toBe(200);
  });

  it('no Authorization header → 401 unauthenticated, challenge without an error code', async () => {
    const res = await products();
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: 'unauthenticated',
      error_description: 'A bearer token is required',
    });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
  });

  it('Basic instead of Bearer → 401, no bearer credentials were sent', async () => {
    const res = await products(
      `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
    );
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthenticated');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
  });

  it('a token in the query string is never accepted', async () => {
    const res = await t.http.get(`/v1/products?access_token=${token}`);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
  });

  const invalid: Array<[string, () => string]> = [
    ['garbage', () => 'Bearer not-a-jwt'],
    ['an empty Bearer', () => 'Bearer'],
    ['three parts', () => `Bearer ${token} extra`],
    ['alg none', () => `Bearer ${b64({ alg: 'none', typ: 'at+jwt', kid })}.${b64(claims)}.`],
    [
      'HS256 signed with the published public key',
      () => {
        const header = b64({ alg: 'HS256', typ: 'at+jwt', kid });
        const publicPem = t.app.get(SigningKeys).find(kid)!.pem;
        const signature = createHmac('sha256', publicPem)
          .update(`${header}.${b64(claims)}`)
          .digest('base64url');
        return `Bearer ${header}.${b64(claims)}.${signature}`;
      },
    ],
    [
      'a tampered payload (another tenant)',
      () => {
        const [header, , signature] = token.split('.');
        return `Bearer ${header}.${b64({ ...claims, tid: claims.tid + 1 })}.${signature}`;
      },
    ],
    [
      'an expired token',
      () => {
        const now = Math.floor(Date.now() / 1000);
        return `Bearer ${t.app.get(AccessTokenIssuer).sign({ ...claims, iat: now - 3700, exp: now - 100 }, TOKEN_TYPES.app)}`;
      },
    ],
    [
      'a token signed by an unknown key',
      () => {
        const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
        const forged = new JwtService().sign(claims, {
          algorithm: 'ES256',
          privateKey,
          header: { alg: 'ES256', typ: 'at+jwt', kid },
        });
        return `Bearer ${forged}`;
      },
    ],
    [
      'another issuer',
      () =>
        `Bearer ${t.app.get(AccessTokenIssuer).sign({ ...claims, iss: 'https://evil.example' }, TOKEN_TYPES.app)}`,
    ],
    [
      'another audience',
      () =>
        `Bearer ${t.app.get(AccessTokenIssuer).sign({ ...claims, aud: 'https://other.example' }, TOKEN_TYPES.app)}`,
    ],
    ['a JWT of another type', () => `Bearer ${t.app.get(AccessTokenIssuer).sign(claims, 'JWT')}`],
    [
      'a token whose app does not exist',
      () =>
        `Bearer ${t.app.get(AccessTokenIssuer).sign({ ...claims, app: 999_999, jti: randomUUID() }, TOKEN_TYPES.app)}`,
    ],
  ];

  it.each(invalid)('%s → 401 unauthenticated with error="invalid_token"', async (_name, header) => {
    const res = await products(header());
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthenticated');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
  });

  it('a valid token lacking the scope → 403 scope_denied naming the needed scope', async () => {
    const narrow = await tokenFor(t, client, 'orders:read');
    const res = await products(`Bearer ${narrow}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: 'scope_denied',
      error_description: 'The token lacks the scope products:read',
    });
    expect(res.headers['www-authenticate']).toBe(
      'Bearer error="insufficient_scope", scope="products:read"',
    );
  });

  it('a customer session token on an app endpoint → 403 scope_denied, even holding the scope name', async () => {
    const customerToken = t.app
      .get(AccessTokenIssuer)
      .sign({ ...claims, cid: 1, jti: randomUUID(), scope: 'products:read' }, TOKEN_TYPES.customer);
    const res = await products(`Bearer ${customerToken}`);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('scope_denied');
    expect(res.headers['www-authenticate']).toBe(
      'Bearer error="insufficient_scope", scope="products:read"',
    );
  });

  describe('tenant isolation at the guard', () => {
    it("a tenant's token sees only its own tenant, whatever the request says", async () => {
      const a = await newTenant(t);
      const b = await newTenant(t);
      const productOfA = await newProduct(t, a.id, 500, 'SHARED-SKU');
      const productOfB = await newProduct(t, b.id, 700, 'SHARED-SKU');
      const tokenB = await tokenFor(t, await newApp(t, b.id, ['products:read']));

      const list = await products(`Bearer ${tokenB}`)
        .set('x-tenant-id', String(a.id))
        .query({ tenant_id: a.id });
      // Unknown query properties are refused outright rather than ignored.
      expect(list.status).toBe(400);

      const own = await products(`Bearer ${tokenB}`).set('x-tenant-id', String(a.id));
      expect(own.status).toBe(200);
      expect(own.body.data.map((p: { id: number }) => p.id)).toEqual([productOfB]);

      const foreign = await t.http
        .get(`/v1/products/${productOfA}`)
        .set('authorization', `Bearer ${tokenB}`);
      expect(foreign.status).toBe(404);
      expect(foreign.body.error).toBe('not_found');
      const mine = await t.http
        .get(`/v1/products/${productOfB}`)
        .set('authorization', `Bearer ${tokenB}`);
      expect(mine.status).toBe(200);
      expect(mine.body).toMatchObject({
        id: productOfB,
        sku: 'SHARED-SKU',
        name: 'Test product',
        price: 7,
        currency: 'USD',
        active: true,
      });
    });
  });
});
