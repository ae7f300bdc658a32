import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrlFor } from './support/database-url.js';
import { ProbeModule } from './support/probe.module.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { inject } from 'vitest';

/** CONTRACT section 1: the shape and code of every framework-level error. */
describe('error layer', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, [ProbeModule]);
  });
  afterAll(() => t.close());

  const validBody = { name: 'ok', items: [{ quantity: 1 }] };

  it('unknown route → 404 not_found', async () => {
    const res = await t.http.get('/v1/nothing-here?x=1');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      error: 'not_found',
      error_description: 'No route matches GET /v1/nothing-here',
    });
  });

  it('malformed JSON → 400 invalid_request', async () => {
    const res = await t.http
      .post('/__probe/echo')
      .set('content-type', 'application/json')
      .send('{"name": "ok",');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid_request',
      error_description: 'Request body is not valid JSON',
    });
  });

  it('empty body declared as JSON → 400 invalid_request', async () => {
    const res = await t.http.post('/__probe/echo').set('content-type', 'application/json').send('');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('JSON with a __proto__ key → 400 invalid_request', async () => {
    const res = await t.http
      .post('/__probe/echo')
      .set('content-type', 'application/json')
      .send('{"name":"ok","items":[{"quantity":1}],"__proto__":{"admin":true}}');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('body over 1 MiB → 413 payload_too_large', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024), items: [] });
    const res = await t.http
      .post('/__probe/echo')
      .set('content-type', 'application/json')
      .send(big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      error: 'payload_too_large',
      error_description: 'Request body is too large (1 MiB at most; 4 KiB on the token endpoint)',
    });
  });

  it('a body of exactly 1 MiB is accepted by the limit', async () => {
    const padding = 1024 * 1024 - JSON.stringify({ name: '', items: [{ quantity: 1 }] }).length;
    const body = JSON.stringify({ name: ' '.repeat(padding), items: [{ quantity: 1 }] });
    expect(Buffer.byteLength(body)).toBe(1024 * 1024);
    const res = await t.http
      .post('/__probe/echo')
      .set('content-type', 'application/json')
      .send(body);
    // Not 413: it reaches validation (name is too long).
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
  });

  it.each([
    ['text/plain', 'hello'],
    ['application/xml', '<a/>'],
    ['application/x-www-form-urlencoded', 'name=ok'],
    ['multipart/form-data; boundary=x', '--x--'],
  ])('non-JSON body (%s) → 415 unsupported_media_type', async (type, body) => {
    const res = await t.http.post('/__probe/echo').set('content-type', type).send(body);
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      error: 'unsupported_media_type',
      error_description: 'Request body must be application/json',
    });
  });

  it('JSON with a charset parameter is accepted', async () => {
    const res = await t.http
      .post('/__probe/echo')
      .set('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify(validBody));
    expect(res.status).toBe(201);
    expect(res.body).toEqual(validBody);
  });

  it('validation failure → 400 validation_failed with details naming nested fields', async () => {
    const res = await t.http
      .post('/__probe/echo')
      .send({ name: '', items: [{ quantity: 0 }, { quantity: 'x' }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
    expect(res.body.error_description).toBe('name must be longer than or equal to 1 characters');
    expect(res.body.details).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'must be longer than or equal to 1 characters' },
        { field: 'items[0].quantity', message: 'must not be less than 1' },
        { field: 'items[1].quantity', message: 'must be an integer number' },
      ]),
    );
  });

  it('a NUL character anywhere in the body or path → 400 validation_failed naming the field', async () => {
    const body = await t.http
      .post('/__probe/echo')
      .send({ name: 'a\u0000b', items: [{ quantity: 1 }] });
    expect(body.status).toBe(400);
    expect(body.body).toEqual({
      error: 'validation_failed',
      error_description: 'name must not contain NUL characters',
      details: [{ field: 'name', message: 'must not contain NUL characters' }],
    });
    const nested = await t.http
      .post('/__probe/echo')
      .send({ name: 'a', items: [{ quantity: 1, note: '\u0000' }] });
    expect(nested.body.details).toEqual([
      { field: 'items[0].note', message: 'must not contain NUL characters' },
    ]);
    const path = await t.http.get('/__probe/item/a%00b');
    expect(path.status).toBe(400);
    expect(path.body.details).toEqual([
      { field: 'id', message: 'must not contain NUL characters' },
    ]);
  });

  it('a value the database refuses (data exception) → 400, not 500', async () => {
    const res = await t.http.get('/__probe/data-exception');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'validation_failed',
      error_description: 'A value in the request cannot be stored',
    });
  });

  it('unknown property → 400 validation_failed', async () => {
    const res = await t.http.post('/__probe/echo').send({ ...validBody, admin: true });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { field: 'admin', message: 'property admin should not exist' },
    ]);
  });

  it('unexpected error → 500 internal_error with the request id, no internals', async () => {
    const res = await t.http.get('/__probe/boom').set('x-request-id', 'trace-500');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: 'internal_error',
      error_description: 'An unexpected error occurred',
      request_id: 'trace-500',
    });
    expect(res.text).not.toMatch(/SELECT|secret|at .*\.ts/);
  });

  it('database unreachable during a request → 503 unavailable', async () => {
    const res = await t.http.get('/__probe/db-down');
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('unavailable');
    expect(res.headers['retry-after']).toBe('5');
  });

  describe('X-Request-Id', () => {
    it('is generated when absent', async () => {
      const res = await t.http.get('/health/live');
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('echoes a sane incoming id, on errors too', async () => {
      for (const path of ['/health/live', '/nope']) {
        const res = await t.http.get(path).set('x-request-id', 'abc-123.DEF');
        expect(res.headers['x-request-id']).toBe('abc-123.DEF');
      }
    });

    it('replaces an insane incoming id', async () => {
      const res = await t.http.get('/health/live').set('x-request-id', 'has spaces\tand tabs');
      expect(res.headers['x-request-id']).not.toBe('has spaces\tand tabs');
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('is on 413 and 415 responses', async () => {
      const r415 = await t.http.post('/__probe/echo').set('content-type', 'text/plain').send('x');
      const r413 = await t.http
        .post('/__probe/echo')
        .set('content-type', 'application/json')
        .send(JSON.stringify({ n: 'x'.repeat(1_100_000) }));
      expect(r415.headers['x-request-id']).toBeTruthy();
      expect(r413.headers['x-request-id']).toBeTruthy();
    });
  });
});

describe('health', () => {
  it('live and ready answer 200; ready → 503 unavailable once the database is gone', async () => {
    const t = await createTestApp();
    try {
      const live = await t.http.get('/health/live');
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ status: 'ok' });
      const ready = await t.http.get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('ok');

      const name = new URL(t.databaseUrl).pathname.slice(1);
      const admin = new pg.Client({
        connectionString: databaseUrlFor(inject('serverUrl'), 'postgres'),
      });
      await admin.connect();
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();

      const down = await t.http.get('/health/ready');
      expect(down.status).toBe(503);
      expect(down.body).toEqual({
        error: 'unavailable',
        error_description: 'The database does not answer',
        details: [{ field: 'database', message: 'ping failed or timed out' }],
      });
      expect((await t.http.get('/health/live')).status).toBe(200);
    } finally {
      await t.close().catch(() => undefined);
    }
  });
});
