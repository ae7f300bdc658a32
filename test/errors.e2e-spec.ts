import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrlFor } from './support/database-url.js';
import { CredentialsState } from '../src/auth/credentials-state.service.js';
import { within } from './support/eventually.js';
import { newApp, newTenant, tokenFor } from './support/factories.js';
import { ProbeModule } from './support/probe.module.js';
import { rawHttp } from './support/raw-http.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { logCapture } from './support/log-capture.js';
import { inject } from 'vitest';

/** docs/BEHAVIOUR.md#errors: the shape and code of every framework-level error. */
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

  it('a method the path does not have → 404 not_found, not 405', async () => {
    const res = await t.http.delete('/v1/products');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: 'not_found',
      error_description: 'No route matches DELETE /v1/products',
    });
    expect(res.headers['x-request-id']).toBeTruthy();
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

  it('JSON with a __proto__ key → 400 validation_failed naming it (valid JSON, a refused name)', async () => {
    for (const [text, field] of [
      ['{"name":"ok","items":[{"quantity":1}],"__proto__":{"admin":true}}', '__proto__'],
      ['{"name":"ok","items":[{"quantity":1,"__proto__":null}]}', 'items[0].__proto__'],
      ['{"name":"ok","constructor":{"prototype":{"admin":true}}}', 'constructor'],
    ]) {
      const res = await t.http
        .post('/__probe/echo')
        .set('content-type', 'application/json')
        .send(text);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: 'validation_failed',
        details: [{ field, message: 'is not an allowed property name' }],
      });
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('broken JSON that also holds a __proto__ key stays 400 invalid_request', async () => {
    const res = await t.http
      .post('/__probe/echo')
      .set('content-type', 'application/json')
      .send('{"__proto__":{"admin":true},');
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

      // A ping's answer serves probes for 250 ms (database-probe.ts): the next one is 503.
      let down = await t.http.get('/health/ready');
      await within(1_000, async () => (down = await t.http.get('/health/ready')).status !== 200);
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

/** Issue 11 findings 5 and 6: inputs that crashed requests, and errors raised before our code. */
describe('hostile input and router-level errors', () => {
  let t: TestApp;
  let token: string;
  let port: number;
  const { destination, lines: logs } = logCapture();

  beforeAll(async () => {
    t = await createTestApp({ LOG_LEVEL: 'error' }, [ProbeModule], destination);
    const tenant = await newTenant(t);
    token = await tokenFor(t, await newApp(t, tenant.id));
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.getHttpServer().address() as { port: number }).port;
  });
  afterAll(() => t.close());

  const post = (path: string, body: unknown) =>
    t.http
      .post(path)
      .set('authorization', `Bearer ${token}`)
      .send(body as object);
  const customer = { name: 'Ada', email: 'ada@example.com' };
  const shipping_address = { country: 'TR', city: 'Istanbul', address: 'Street 1' };

  function expectContractError(res: { status: number; body: unknown; headers: object }): void {
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body).toEqual(
      expect.objectContaining({ error: expect.any(String), error_description: expect.any(String) }),
    );
    expect(res.headers).toHaveProperty('x-request-id');
  }

  const raw = (request: string) => rawHttp(port, request);

  it('a name of 200 × "a\\uFE0F" (400 code points) → 400, as the database CHECK counts', async () => {
    const res = await post('/v1/customers/register', {
      name: 'a\uFE0F'.repeat(200),
      email: 'fe0f@example.com',
      password: 'correct horse battery staple',
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'name', message: 'must be 1 to 200 characters' }]);
    const emoji = await post('/v1/customers/register', {
      name: '😀'.repeat(200),
      email: 'emoji@example.com',
      password: 'correct horse battery staple',
    });
    expect(emoji.status).toBe(201);
  });

  it('a lone surrogate anywhere → 400 naming the field (validators threw on it)', async () => {
    const res = await post('/v1/customers/register', {
      name: ' ',
      email: '\ud800',
      password: 'null',
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { field: 'email', message: 'must be well-formed Unicode (no lone surrogates)' },
    ]);
  });

  it('JSON nested 4,000 deep → 400 (was a stack overflow)', async () => {
    const deep = `{"customer":${'['.repeat(4000)}1${']'.repeat(4000)}}`;
    const res = await t.http
      .post('/v1/orders')
      .set('authorization', `Bearer ${token}`)
      .set('content-type', 'application/json')
      .send(deep);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
    expect(res.body.error_description).toMatch(/nests deeper than 32 levels/);
  });

  it.each([[[[]]], [[null]], [['x']], [[1]]])(
    'items %j → 400 on create and on import, never 500 or "product undefined"',
    async (items) => {
      const create = await post('/v1/orders', { customer, shipping_address, items });
      expect(create.status).toBe(400);
      expect(create.body.details).toContainEqual({
        field: 'items',
        message: 'each element must be an object',
      });
      const imported = await post('/v1/marketplace/orders/import', {
        marketplace: 'm',
        external_order_id: 'e-1',
        customer,
        shipping_address,
        items,
      });
      expect(imported.status).toBe(400);
      expect(imported.body.error).toBe('validation_failed');
    },
  );

  it('a CHECK violation → 400 validation_failed, not 500', async () => {
    const res = await t.http.get('/__probe/check-violation');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'validation_failed',
      error_description: 'A value in the request is out of bounds',
    });
  });

  it('a 500 is logged without the query, its parameters or the driver message', async () => {
    logs.length = 0;
    const res = await t.http.get('/__probe/query-failed');
    expect(res.status).toBe(500);
    const text = logs.join('');
    expect(text).toContain('unexpected error');
    expect(text).toContain('42P01');
    for (const leak of ['victim@example.com', 'argon2id', 'no_such_table', 'SELECT']) {
      expect(text).not.toContain(leak);
    }
  });

  it.each(['/v1/orders/%E0%A4%A', '/v1/orders/%', '/v1/orders/%zz'])(
    'bad percent-encoding %s → 400 invalid_request in the error shape',
    async (path) => {
      const res = await t.http.get(path).set('authorization', `Bearer ${token}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid_request',
        error_description: 'The URL is not valid percent-encoding',
      });
      expect(res.headers['x-request-id']).toBeTruthy();
    },
  );

  it('a 300-digit order id → 400 validation_failed (was 414)', async () => {
    const res = await t.http
      .get(`/v1/orders/${'9'.repeat(300)}`)
      .set('authorization', `Bearer ${token}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
  });

  it('a path parameter over 2,048 characters → 414 uri_too_long in the error shape', async () => {
    const res = await t.http
      .get(`/v1/orders/${'9'.repeat(3000)}`)
      .set('authorization', `Bearer ${token}`);
    expect(res.status).toBe(414);
    expectContractError(res);
    expect(res.body.error).toBe('uri_too_long');
  });

  it('a valid 100-emoji external id: accepted, and its Location can be read back', async () => {
    const externalId = '😀'.repeat(100);
    const accepted = await post('/v1/marketplace/orders/import', {
      marketplace: 'emoji',
      external_order_id: externalId,
      customer,
      shipping_address,
      items: [{ sku: 'S', name: 'N', quantity: 1, unit_price: 1, total: 1 }],
    });
    expect(accepted.status).toBe(202);
    const status = await t.http
      .get(accepted.headers.location)
      .set('authorization', `Bearer ${token}`);
    expect(status.status).toBe(200);
    expect(status.body.external_order_id).toBe(externalId);
  });

  it('headers over 16 KiB → 431 headers_too_large in the error shape with X-Request-Id', async () => {
    const response = await raw(
      `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(response).toMatch(/^HTTP\/1\.1 431 /);
    expect(response).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/i);
    expect(JSON.parse(response.split('\r\n\r\n')[1])).toEqual({
      error: 'headers_too_large',
      error_description: 'The request line and headers exceed 16 KiB',
    });
  });

  it.each(['abc', '-1', '1, 2'])(
    'Content-Length %j → 400 invalid_request in the error shape with X-Request-Id',
    async (length) => {
      const response = await raw(
        `POST /v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{}`,
      );
      expect(response).toMatch(/^HTTP\/1\.1 400 /);
      expect(response).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/i);
      expect(JSON.parse(response.split('\r\n\r\n')[1])).toMatchObject({
        error: 'invalid_request',
      });
    },
  );
});

/** The attacker review of the hardening change: costs that strangers could impose. */
describe('bounded work before authentication', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.getHttpServer().address() as { port: number }).port;
  });
  afterAll(() => t.close());

  const raw = (request: string) => rawHttp(port, request);

  it.each([
    ['an array of 500,000 values', `{"items":[${Array(500_000).fill(0).join(',')}]}`, 'items'],
    [
      'an object of 60,000 keys',
      `{${Array.from({ length: 60_000 }, (_, i) => `"k${i}":1`).join(',')}}`,
      'body',
    ],
  ])('%s → 400 at the edge, whoever sends it', async (_name, body, field) => {
    const res = await t.http.post('/v1/orders').set('content-type', 'application/json').send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'validation_failed',
      error_description: `${field} holds more than 10000 values`,
      details: [{ field, message: 'holds more than 10000 values' }],
    });
  });

  it('validation lists at most 20 details, however many values are wrong', async () => {
    const tenant = await newTenant(t);
    const token = await tokenFor(t, await newApp(t, tenant.id));
    const res = await t.http
      .post('/v1/orders')
      .set('authorization', `Bearer ${token}`)
      .send({
        customer: {},
        shipping_address: {},
        items: Array.from({ length: 1000 }, () => ({ nope: 1 })),
      });
    expect(res.status).toBe(400);
    expect(res.body.details).toHaveLength(20);
  });

  it.each(['__proto__', 'constructor', 'prototype'])(
    'a query parameter named %s → 400',
    async (name) => {
      const res = await t.http.get(`/health/live?${name}=1`);
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        { field: name, message: 'is not an allowed property name' },
      ]);
    },
  );

  it('an HTTP/1.1 request without Host → 400 invalid_request in the error shape', async () => {
    const response = await raw('GET /health/live HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(response).toMatch(/^HTTP\/1\.1 400 /);
    expect(response).toMatch(/\r\nx-request-id: \S+\r\n/i);
    expect(JSON.parse(response.split('\r\n\r\n')[1])).toEqual({
      error: 'invalid_request',
      error_description: 'An HTTP/1.1 request needs a Host header',
    });
  });

  it('an Expect other than 100-continue → 417 in the error shape with X-Request-Id', async () => {
    const response = await raw(
      'GET /health/live HTTP/1.1\r\nHost: x\r\nExpect: 100-foo\r\nConnection: close\r\n\r\n',
    );
    expect(response).toMatch(/^HTTP\/1\.1 417 /);
    expect(response).toMatch(/\r\nx-request-id: \S+\r\n/i);
    expect(JSON.parse(response.split('\r\n\r\n')[1])).toMatchObject({
      error: 'expectation_failed',
    });
  });
});

describe('database outage with a valid token', () => {
  it('answers 503 unavailable, never 401: an outage must not log clients out', async () => {
    const t = await createTestApp();
    try {
      const tenant = await newTenant(t);
      const token = await tokenFor(t, await newApp(t, tenant.id));
      const name = new URL(t.databaseUrl).pathname.slice(1);
      const admin = new pg.Client({
        connectionString: databaseUrlFor(inject('serverUrl'), 'postgres'),
      });
      await admin.connect();
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
      // The credentials listener is gone with the database: token checks go to it.
      const state = t.app.get(CredentialsState);
      await within(5_000, async () => !state.cacheTrusted);
      const res = await t.http.get('/v1/products').set('authorization', `Bearer ${token}`);
      expect(res.status).toBe(503);
      expect(res.body.error).toBe('unavailable');
      expect(res.headers['www-authenticate']).toBeUndefined();
    } finally {
      await t.close().catch(() => undefined);
    }
  });
});
