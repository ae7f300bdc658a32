import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/test-app.js';

describe('GET /metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('serves Prometheus text with process metrics and request durations by route template', async () => {
    await t.http.get('/health/live');
    await t.http.get('/v1/orders/123');
    await t.http.get('/no/such/route');
    const res = await t.http.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.text).toContain('process_cpu_user_seconds_total');
    expect(res.text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/health\/live",status="200"\} 1/,
    );
    expect(res.text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/v1\/orders\/:id",status="401"\} 1/,
    );
    expect(res.text).toMatch(/route="unmatched",status="404"/);
    expect(res.text).not.toContain('/no/such/route');
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789abcdef';
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ METRICS_TOKEN: token });
  });
  afterAll(() => t.close());

  it('needs the bearer token: none → 401, wrong → 401 invalid_token, right → 200', async () => {
    const none = await t.http.get('/metrics');
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('unauthenticated');
    expect(none.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(none.headers['x-request-id']).toBeTruthy();
    const wrong = await t.http.get('/metrics').set('authorization', `Bearer ${token}x`);
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toContain('error="invalid_token"');
    const right = await t.http.get('/metrics').set('authorization', `Bearer ${token}`);
    expect(right.status).toBe(200);
    expect(right.text).toContain('process_cpu_user_seconds_total');
  });
});
