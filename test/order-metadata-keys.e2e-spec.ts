import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newShop, placeOrder, type Shop } from './support/factories.js';
import { metadataKey, OBJECT_NAMES } from './support/hostile-arbitraries.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** The three names 3.4 refuses: they reach an object's prototype. */
const REFUSED = ['__proto__', 'constructor', 'prototype'] as const;

/** CONTRACT 3.4: every metadata key of the pattern is stored and returned as sent. */
describe('order metadata keys', () => {
  let t: TestApp;
  let shop: Shop;
  const auth = () => ({ authorization: `Bearer ${shop.token}` });

  /** A PATCH with the JSON text as written (a `__proto__` key stays a key). */
  const patchText = (id: number, text: string) =>
    t.http.patch(`/v1/orders/${id}`).set(auth()).set('content-type', 'application/json').send(text);

  const read = async (id: number) =>
    (await t.http.get(`/v1/orders/${id}`).set(auth())).body as {
      version: number;
      metadata: Record<string, string>;
    };

  const listIds = async (query: string) => {
    const res = await t.http.get(`/v1/orders?${query}`).set(auth());
    expect(res.status).toBe(200);
    return (res.body.data as Array<{ id: number }>).map((o) => o.id);
  };

  beforeAll(async () => {
    t = await createTestApp();
    shop = await newShop(t);
  });
  afterAll(() => t.close());

  it.each(OBJECT_NAMES)(
    '%s: stored by PATCH, returned, found by the list filter, removed by null',
    async (key) => {
      const order = await placeOrder(t, shop);
      const value = `v-${key}-${order.id}`;
      const set = await patchText(order.id, JSON.stringify({ metadata: { [key]: value } }));
      expect(set.status).toBe(200);
      expect(set.body.metadata).toEqual({ [key]: value });
      expect(set.body.version).toBe(2);
      expect((await read(order.id)).metadata).toEqual({ [key]: value });

      expect(await listIds(`metadata[${key}]=${encodeURIComponent(value)}`)).toEqual([order.id]);
      expect(await listIds(`metadata[${key}]=other`)).toEqual([]);

      const kept = await patchText(order.id, JSON.stringify({ metadata: { other: 'x' } }));
      expect(kept.body.metadata).toEqual({ other: 'x', [key]: value });
      const removed = await patchText(order.id, JSON.stringify({ metadata: { [key]: null } }));
      expect(removed.status).toBe(200);
      expect(removed.body.metadata).toEqual({ other: 'x' });
      expect(removed.body.version).toBe(4);
    },
  );

  it('an order placed and then given every such key keeps them all, with a merge-patch too', async () => {
    const order = await placeOrder(t, shop);
    const metadata = Object.fromEntries(OBJECT_NAMES.map((key) => [key, key.toUpperCase()]));
    const res = await t.http
      .patch(`/v1/orders/${order.id}`)
      .set(auth())
      .set('content-type', 'application/merge-patch+json')
      .send(JSON.stringify({ metadata }));
    expect(res.status).toBe(200);
    expect(res.body.metadata).toEqual(metadata);
    const events = await t.http.get(`/v1/orders/${order.id}/events`).set(auth());
    const updated = (events.body.data as Array<{ type: string; data: { object: unknown } }>).find(
      (e) => e.type === 'order.updated',
    );
    expect(updated?.data.object).toMatchObject({ metadata });
  });

  it.each(REFUSED)('%s: 400 validation_failed naming the key; nothing written', async (key) => {
    const order = await placeOrder(t, shop);
    for (const text of [
      `{"metadata":{"${key}":"x"}}`,
      `{"metadata":{"ok":"1","${key}":null}}`,
      `{"metadata":{"${key}":{"polluted":"yes"}}}`,
    ]) {
      const res = await patchText(order.id, text);
      expect({ text, status: res.status, error: res.body.error }).toEqual({
        text,
        status: 400,
        error: 'validation_failed',
      });
      expect(res.body.details).toEqual([
        { field: `metadata.${key}`, message: 'is not an allowed property name' },
      ]);
    }
    const list = await t.http.get(`/v1/orders?metadata[${key}]=x`).set(auth());
    expect(list.status).toBe(400);
    expect(list.body.error).toBe('validation_failed');
    expect(await read(order.id)).toMatchObject({ version: 1, metadata: {} });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('any key of [A-Za-z0-9_.-]{1,40} but the three is stored as sent and found by the filter', async () => {
    const order = await placeOrder(t, shop);
    let version = 1;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(metadataKey, { minLength: 1, maxLength: 5 }),
        async (keys) => {
          const metadata = Object.fromEntries(keys.map((key, i) => [key, `v${i}`]));
          const res = await patchText(order.id, JSON.stringify({ metadata: null }));
          expect(res.status).toBe(200);
          const set = await patchText(order.id, JSON.stringify({ metadata }));
          expect(set.status).toBe(200);
          expect(set.body.metadata).toEqual(metadata);
          version = set.body.version as number;
          const key = keys[0];
          expect(await listIds(`metadata[${key}]=v0`)).toEqual([order.id]);
        },
      ),
      { numRuns: 40 },
    );
    expect(version).toBeGreaterThan(1);
  });
});
