import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from './support/eventually.js';
import { newShop, type Shop } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { logCapture } from './support/log-capture.js';

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  req?: { method: string; url: string; remoteAddress: string };
  res?: { statusCode: number };
  responseTime?: number;
  [field: string]: unknown;
}

/** Exactly these fields on a request line: nothing from headers or the body can ride along. */
const REQUEST_LINE_FIELDS = [
  'hostname',
  'level',
  'msg',
  'pid',
  'req',
  'reqId',
  'res',
  'responseTime',
  'time',
];

/**
 * docs/BEHAVIOUR.md#operations: one structured line per request, with its id, and no secret in it.
 */
describe('request log', () => {
  let t: TestApp;
  let shop: Shop;
  const { destination, lines: text } = logCapture();

  beforeAll(async () => {
    t = await createTestApp({ LOG_LEVEL: 'info' }, [], destination);
    shop = await newShop(t);
  });
  afterAll(() => t.close());

  const lines = (): LogLine[] =>
    text
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LogLine);

  /** The lines of one request, once its completion line is written (after the response). */
  async function linesOf(requestId: string): Promise<LogLine[]> {
    await within(2_000, async () => lines().some((l) => l.reqId === requestId && l.res));
    return lines().filter((l) => l.reqId === requestId);
  }

  const requestId = () => `log-${randomBytes(6).toString('hex')}`;

  it('a request with a token, an Idempotency-Key and query values writes one line, none of them in it', async () => {
    const idempotencyKey = `idem-${randomBytes(12).toString('hex')}`;
    const email = `victim-${randomBytes(4).toString('hex')}@example.com`;
    const created = await t.http
      .post('/v1/orders')
      .set('authorization', `Bearer ${shop.token}`)
      .set('idempotency-key', idempotencyKey)
      .set('x-request-id', requestId())
      .send({
        customer: { name: 'Ada', email },
        shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
        items: [{ product_id: shop.product, quantity: 1 }],
      });
    expect(created.status).toBe(201);

    const id = requestId();
    const res = await t.http
      .get(`/v1/orders/${created.body.id}?email=${encodeURIComponent(email)}&note=s3cr3tvalue`)
      .set('authorization', `Bearer ${shop.token}`)
      .set('idempotency-key', idempotencyKey)
      .set('x-request-id', id);
    expect(res.status).toBe(200);

    const [line, ...more] = await linesOf(id);
    expect(more).toEqual([]);
    expect(Object.keys(line).sort()).toEqual(REQUEST_LINE_FIELDS);
    expect(line).toMatchObject({
      level: 30,
      msg: 'request completed',
      reqId: id,
      req: {
        method: 'GET',
        url: `/v1/orders/${created.body.id}?email=[redacted]&note=[redacted]`,
        remoteAddress: expect.stringMatching(/127\.0\.0\.1|::1/),
      },
      res: { statusCode: 200 },
    });
    expect(Object.keys(line.req!).sort()).toEqual(['method', 'remoteAddress', 'url']);
    expect(line.responseTime).toBeGreaterThan(0);

    const all = text.join('');
    for (const secret of [
      shop.token,
      shop.token.slice(-20),
      idempotencyKey,
      email,
      's3cr3tvalue',
    ]) {
      expect(all).not.toContain(secret);
    }
  });

  it('a refused request writes one line too, with its status and without the token', async () => {
    const id = requestId();
    const forged = `${shop.token.slice(0, -10)}AAAAAAAAAA`;
    const res = await t.http
      .get('/v1/orders')
      .set('authorization', `Bearer ${forged}`)
      .set('x-request-id', id);
    expect(res.status).toBe(401);
    const [line, ...more] = await linesOf(id);
    expect(more).toEqual([]);
    expect(line).toMatchObject({ reqId: id, req: { url: '/v1/orders' }, res: { statusCode: 401 } });
    expect(text.join('')).not.toContain(forged.slice(-30));
  });

  it('an unknown route and a router-level error (bad percent-encoding) write one line each', async () => {
    for (const [path, status] of [
      ['/v1/nowhere?secret=x', 404],
      ['/v1/orders/%zz', 400],
    ] as const) {
      const id = requestId();
      expect((await t.http.get(path).set('x-request-id', id)).status).toBe(status);
      const [line, ...more] = await linesOf(id);
      expect(more).toEqual([]);
      expect(line.res).toEqual({ statusCode: status });
    }
  });
});
