import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, newTenant, tokenFor } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * docs/BEHAVIOUR.md#rate-limits: per-token request rate with 429, Retry-After and RateLimit
 * headers.
 */
describe('per-token request rate', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ API_RATE_LIMIT_PER_TOKEN: '3' });
  });
  afterAll(() => t.close());

  it('counts each token separately; beyond the limit → 429 rate_limited with Retry-After', async () => {
    const tenant = await newTenant(t);
    const app = await newApp(t, tenant.id, ['products:read']);
    const [first, second] = [await tokenFor(t, app), await tokenFor(t, app)];
    const get = (token: string) =>
      t.http.get('/v1/products').set('authorization', `Bearer ${token}`);

    for (const remaining of [2, 1, 0]) {
      const res = await get(first);
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-policy']).toBe('"token";q=3;w=60');
      expect(res.headers.ratelimit).toMatch(new RegExp(`^"token";r=${remaining};t=\\d+$`));
    }
    const limited = await get(first);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers.ratelimit).toMatch(/^"token";r=0;t=\d+$/);

    expect((await get(second)).status).toBe(200);
  });

  it('unauthenticated requests are refused before they count', async () => {
    const res = await t.http.get('/v1/products');
    expect(res.status).toBe(401);
    expect(res.headers['ratelimit-policy']).toBeUndefined();
  });
});
