import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, newProduct, newTenant, tokenFor } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

interface Line {
  id: number;
  quantity: number;
  fulfilled_quantity: number;
  refunded_quantity: number;
}

/**
 * CONTRACT 3.10 "the order's rules hold under any number of concurrent requests", against
 * real PostgreSQL: many requests at once on one order, over the HTTP server's connection pool.
 */
describe('order operations under concurrency', () => {
  let t: TestApp;
  let token: string;
  let products: number[];

  const auth = () => ({ authorization: `Bearer ${token}` });

  async function paidOrder(lines: Array<[number, number]>): Promise<{ id: number; items: Line[] }> {
    const created = await t.http
      .post('/v1/orders')
      .set(auth())
      .send({
        customer: { name: 'Ada', email: 'ada@example.com' },
        shipping_address: { country: 'TR', city: 'Istanbul', address: 'Moda 1' },
        items: lines.map(([product, quantity]) => ({ product_id: products[product], quantity })),
      });
    expect(created.status).toBe(201);
    const paid = await t.http
      .post(`/v1/orders/${created.body.id}/status`)
      .set(auth())
      .send({ status: 'paid' });
    expect(paid.status).toBe(200);
    return paid.body as { id: number; items: Line[] };
  }

  const read = async (id: number) => (await t.http.get(`/v1/orders/${id}`).set(auth())).body;

  beforeAll(async () => {
    t = await createTestApp();
    const tenant = await newTenant(t);
    token = await tokenFor(t, await newApp(t, tenant.id));
    products = [await newProduct(t, tenant.id, 1000), await newProduct(t, tenant.id, 300)];
  });
  afterAll(() => t.close());

  it('30 concurrent refunds of 3.00 on a 50.00 order: 16 succeed, the rest 422 or 409, never past the total', async () => {
    const order = await paidOrder([[0, 5]]);
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        t.http.post(`/v1/orders/${order.id}/refunds`).set(auth()).send({ amount: 3 }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(16);
    expect(statuses.every((s) => s === 201 || s === 422)).toBe(true);
    const after = await read(order.id);
    expect(after.refunded_total).toBe(48);
    expect(after.version).toBe(2 + 16);
    const refunds = await t.http.get(`/v1/orders/${order.id}/refunds`).set(auth());
    expect(refunds.body.data).toHaveLength(16);
  });

  it('line refunds that together would pass the total end with the order refunded, exactly at it', async () => {
    const order = await paidOrder([[1, 10]]);
    const answers = await Promise.all(
      Array.from({ length: 15 }, () =>
        t.http
          .post(`/v1/orders/${order.id}/refunds`)
          .set(auth())
          .send({ items: [{ item_id: order.items[0].id, quantity: 1 }] }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    // Once refunded in full the order is `refunded`: later requests are 409, earlier 422 never.
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(await read(order.id)).toMatchObject({
      status: 'refunded',
      refunded_total: 30,
      items: [expect.objectContaining({ refunded_quantity: 10 })],
    });
  });

  it('fulfillments of one unit each never ship more than ordered, on a multi-line order touched in every order', async () => {
    const order = await paidOrder([
      [0, 3],
      [1, 4],
    ]);
    const [a, b] = order.items;
    const bodies = Array.from({ length: 24 }, (_, i) => ({
      items:
        i % 3 === 0
          ? [
              { item_id: a.id, quantity: 1 },
              { item_id: b.id, quantity: 1 },
            ]
          : i % 3 === 1
            ? [
                { item_id: b.id, quantity: 1 },
                { item_id: a.id, quantity: 1 },
              ]
            : [{ item_id: i % 2 ? a.id : b.id, quantity: 1 }],
    }));
    const answers = await Promise.all(
      bodies.map((body) =>
        t.http.post(`/v1/orders/${order.id}/fulfillments`).set(auth()).send(body),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s !== 201 && s !== 422 && s !== 409)).toEqual([]);
    const after = await read(order.id);
    const shipped = (after.items as Line[]).map((l) => l.fulfilled_quantity);
    expect(shipped[0]).toBeLessThanOrEqual(3);
    expect(shipped[1]).toBeLessThanOrEqual(4);
    const list = await t.http.get(`/v1/orders/${order.id}/fulfillments`).set(auth());
    const sum = (itemId: number) =>
      (list.body.data as Array<{ items: Array<{ item_id: number; quantity: number }> }>)
        .flatMap((f) => f.items)
        .filter((i) => i.item_id === itemId)
        .reduce((total, i) => total + i.quantity, 0);
    expect([sum(a.id), sum(b.id)]).toEqual(shipped);
    expect(list.body.data).toHaveLength(statuses.filter((s) => s === 201).length);
    expect(after.version).toBe(2 + list.body.data.length);
  });

  it('two writers with the same If-Match: exactly one wins, the other gets 412', async () => {
    for (let round = 0; round < 5; round++) {
      const order = await paidOrder([[0, 1]]);
      const [first, second] = await Promise.all(
        ['x', 'y'].map((note) =>
          t.http.patch(`/v1/orders/${order.id}`).set(auth()).set('if-match', '"2"').send({ note }),
        ),
      );
      expect([first.status, second.status].sort((x, y) => x - y)).toEqual([200, 412]);
      const loser = first.status === 412 ? first : second;
      expect(loser.body.current_version).toBe(3);
      expect((await read(order.id)).version).toBe(3);
    }
  });

  it('after N successful concurrent changes the version is 1 + N (+1 for the payment here)', async () => {
    const order = await paidOrder([[0, 1]]);
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        t.http
          .patch(`/v1/orders/${order.id}`)
          .set(auth())
          .send({ metadata: { [`k${i}`]: 'v' } }),
      ),
    );
    expect(answers.every((r) => r.status === 200)).toBe(true);
    const after = await read(order.id);
    expect(after.version).toBe(2 + 25);
    expect(Object.keys(after.metadata)).toHaveLength(25);
    const versions = answers.map((r) => r.body.version as number).sort((x, y) => x - y);
    expect(versions).toEqual(Array.from({ length: 25 }, (_, i) => 3 + i));
  });
});
