import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Maintenance } from '../src/maintenance/maintenance.service.js';
import { Db } from '../src/database/sql/db.js';
import { legacyRequestHash } from '../src/idempotency/canonical-json.js';
import { IdempotencyRepository } from '../src/idempotency/idempotency.repository.js';
import { newApp, newProduct, newTenant, tokenFor, type TestClient } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

describe('Idempotency-Key on POST /v1/orders', () => {
  let t: TestApp;
  let tenantId: number;
  let productId: number;
  let client: TestClient;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp();
    tenantId = (await newTenant(t)).id;
    productId = await newProduct(t, tenantId, 250);
    client = await newApp(t, tenantId);
    token = await tokenFor(t, client);
  });
  afterAll(() => t.close());

  const body = (quantity = 1) => ({
    customer: { name: 'Ada', email: 'ada@example.com' },
    shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
    items: [{ product_id: productId, quantity }],
  });
  const post = (key: string | undefined, payload: object = body(), bearer = token) => {
    const req = t.http.post('/v1/orders').set('authorization', `Bearer ${bearer}`);
    return (key === undefined ? req : req.set('idempotency-key', key)).send(payload);
  };
  const orderCount = async (): Promise<number> => {
    const rows: Array<{ n: number }> = await t.dataSource.query(
      'SELECT count(*)::int AS n FROM orders WHERE tenant_id = $1',
      [tenantId],
    );
    return rows[0].n;
  };

  it('a retry with the same key and body replays the stored response and writes nothing', async () => {
    const first = await post('replay-1');
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const before = await orderCount();
    // Same JSON, keys in another order: the same request.
    const again = await post('replay-1', {
      items: body().items,
      shipping_address: body().shipping_address,
      customer: body().customer,
    });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.body).toEqual(first.body);
    expect(await orderCount()).toBe(before);
  });

  it('stores a keyed hash of the body; a key stored as plain SHA-256 (before 0.2) still replays', async () => {
    const first = await post('legacy-1');
    const [row] = await t.dataSource.query<Array<{ request_hash: Buffer }>>(
      "SELECT request_hash FROM idempotency_keys WHERE key = 'legacy-1'",
    );
    expect(row.request_hash.equals(legacyRequestHash(body()))).toBe(false);
    await t.dataSource.query(
      "UPDATE idempotency_keys SET request_hash = $1 WHERE key = 'legacy-1'",
      [legacyRequestHash(body())],
    );
    const again = await post('legacy-1');
    expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([
      201,
      'true',
      first.body,
    ]);
    const other = await post('legacy-1', body(2));
    expect([other.status, other.body.error]).toEqual([422, 'idempotency_key_reused']);
  });

  it.each(['/v1/%6Frders', '/v1/orders/', '/v1/ord%65rs'])(
    'the key is scoped by route, not raw path: %s with the same key replays, never a second order',
    async (path) => {
      const key = `route-scope-${path}`;
      const first = await post(key);
      expect(first.status).toBe(201);
      const before = await orderCount();
      const again = await t.http
        .post(path)
        .set('authorization', `Bearer ${token}`)
        .set('idempotency-key', key)
        .send(body());
      // Either it reaches the orders route (then it must replay) or no route at all.
      expect([201, 404]).toContain(again.status);
      expect(again.status === 201 ? again.headers['idempotent-replayed'] : 'true').toBe('true');
      expect(await orderCount()).toBe(before);
    },
  );

  it('30 concurrent POSTs with one key create exactly one order; the others get the replay or 409', async () => {
    const before = await orderCount();
    const results = await Promise.all(Array.from({ length: 30 }, () => post('burst-1')));
    const created = results.filter(
      (r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined,
    );
    const replayed = results.filter(
      (r) => r.status === 201 && r.headers['idempotent-replayed'] === 'true',
    );
    const inUse = results.filter((r) => r.status === 409);
    expect(created).toHaveLength(1);
    expect(replayed.length + inUse.length).toBe(29);
    for (const r of inUse) expect(r.body.error).toBe('idempotency_key_in_use');
    for (const r of replayed) expect(r.body.id).toBe(created[0].body.id);
    expect(await orderCount()).toBe(before + 1);
  });

  it('while the first request with a key is in flight → 409 idempotency_key_in_use at once', async () => {
    const runner = t.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const scope = {
        appId: client.app.id,
        method: 'POST',
        path: '/v1/orders',
        key: 'in-flight',
      };
      const tenant = new Db(runner.manager).tenant(tenantId);
      expect(await t.app.get(IdempotencyRepository).tryLock(tenant, scope)).toBe(true);
      const res = await post('in-flight');
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('idempotency_key_in_use');
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    expect((await post('in-flight')).status).toBe(201);
  });

  it('the same key from another app creates that app’s own order', async () => {
    const first = await post('shared-key');
    const otherToken = await tokenFor(t, await newApp(t, tenantId));
    const other = await post('shared-key', body(), otherToken);
    expect(other.status).toBe(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.body.id).not.toBe(first.body.id);
  });

  it('the same key with a different body → 422 idempotency_key_reused', async () => {
    await post('reuse-1', body(1));
    const res = await post('reuse-1', body(2));
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('idempotency_key_reused');
  });

  it('a used key with another, invalid body → 422 idempotency_key_reused; the same body still replays', async () => {
    const first = await post('reuse-invalid');
    expect(first.status).toBe(201);
    const before = await orderCount();
    const invalid = await post('reuse-invalid', { ...body(), items: [] });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error).toBe('idempotency_key_reused');
    const again = await post('reuse-invalid');
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await orderCount()).toBe(before);
  });

  it('after a 4xx the key is still usable', async () => {
    const invalid = await post('after-4xx', { ...body(), items: [] });
    expect(invalid.status).toBe(400);
    const unknown = await post('after-4xx', {
      ...body(),
      items: [{ product_id: 999_999, quantity: 1 }],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toBe('unknown_product');
    const ok = await post('after-4xx');
    expect(ok.status).toBe(201);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
  });

  it('the key is scoped to the path: another endpoint with the same key is independent', async () => {
    const order = await post('path-scope');
    const status = await t.http
      .post(`/v1/orders/${order.body.id}/status`)
      .set('authorization', `Bearer ${token}`)
      .set('idempotency-key', 'path-scope')
      .send({ status: 'paid' });
    expect(status.status).toBe(200);
  });

  it('accepts the structured-field quoted form as the same key', async () => {
    const first = await post('quoted-1');
    const again = await post('"quoted-1"');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });

  it.each([['a'.repeat(256)], ['tab\tkey'], ['ключ']])(
    'a malformed key → 400 validation_failed (%#)',
    async (key) => {
      const res = await t.http
        .post('/v1/orders')
        .set('authorization', `Bearer ${token}`)
        .set('idempotency-key', Buffer.from(key).toString('latin1'))
        .send(body());
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details[0].field).toBe('Idempotency-Key');
    },
  );

  it('an expired key is treated as new, and the purge deletes expired keys', async () => {
    const first = await post('expiring');
    await t.dataSource.query(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'expiring'`,
    );
    const again = await post('expiring');
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body.id).not.toBe(first.body.id);

    await t.dataSource.query(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'expiring'`,
    );
    expect((await t.app.get(Maintenance).purgeExpired()).idempotency_keys).toBeGreaterThanOrEqual(
      1,
    );
    const left: unknown[] = await t.dataSource.query(
      `SELECT 1 FROM idempotency_keys WHERE key = 'expiring'`,
    );
    expect(left).toHaveLength(0);
  });

  it('stores keys with a 24 h expiry by default', async () => {
    await post('ttl-check');
    const [row] = await t.dataSource.query(
      `SELECT round(extract(epoch FROM expires_at - created_at) / 3600) AS hours FROM idempotency_keys WHERE key = 'ttl-check'`,
    );
    expect(Number(row.hours)).toBe(24);
  });
});
