import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, newProduct, newTenant, tokenFor, type TestClient } from './support/factories.js';
import type { TestApp } from './support/test-app.js';
import { twoInstances } from './support/two-instances.js';
import { prng } from './support/prng.js';

/**
 * CONTRACT 3.8's guarantee against real PostgreSQL: under any number of concurrent orders no
 * unit is sold twice. Two service instances (each its own Nest application, HTTP server and
 * connection pool) on one database, their requests interleaved.
 */
describe('stock under concurrency, two instances on one database', () => {
  let a: TestApp;
  let b: TestApp;
  let tenantId: number;
  let tokens: [string, string];

  beforeAll(async () => {
    ({ a, b } = await twoInstances());
    tenantId = (await newTenant(a, 'EUR')).id;
    const client: TestClient = await newApp(a, tenantId);
    tokens = [await tokenFor(a, client), await tokenFor(b, client)];
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** Request `i` goes to instance `i % 2`. */
  const order = (i: number, items: Array<[number, number]>) =>
    (i % 2 === 0 ? a : b).http
      .post('/v1/orders')
      .set('authorization', `Bearer ${tokens[i % 2]}`)
      .send({
        customer: { name: 'Ada', email: 'ada@example.com' },
        shipping_address: { country: 'TR', city: 'Istanbul', address: 'Moda 1' },
        items: items.map(([product_id, quantity]) => ({ product_id, quantity })),
      });

  const stockOf = async (id: number): Promise<number> => {
    const [row] = await a.dataSource.query(
      'SELECT available::int FROM products WHERE tenant_id = $1 AND id = $2',
      [tenantId, id],
    );
    return row.available;
  };

  /** Units of `product` held by the orders the database has: what was sold. */
  const soldOf = async (id: number): Promise<number> => {
    const [row] = await a.dataSource.query(
      'SELECT coalesce(sum(quantity), 0)::int AS sold FROM order_items WHERE tenant_id = $1 AND product_id = $2',
      [tenantId, id],
    );
    return row.sold;
  };

  it('available = 7 and 40 concurrent one-unit orders: exactly 7 created, available ends at 0', async () => {
    const product = await newProduct(a, tenantId, 1000, undefined, 7);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => order(i, [[product, 1]])),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(7);
    expect(statuses.filter((s) => s === 422)).toHaveLength(33);
    for (const refused of answers.filter((r) => r.status === 422)) {
      expect(refused.body.error).toBe('insufficient_stock');
    }
    expect(await stockOf(product)).toBe(0);
    expect(await soldOf(product)).toBe(7);
  });

  it('two tracked products in opposite line order: no deadlock, no 500, no oversell', async () => {
    const [p, q] = [
      await newProduct(a, tenantId, 500, undefined, 6),
      await newProduct(a, tenantId, 700, undefined, 6),
    ];
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        order(
          i,
          i % 4 < 2
            ? [
                [p, 1],
                [q, 1],
              ]
            : [
                [q, 1],
                [p, 1],
              ],
        ),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(6);
    expect(statuses.every((s) => s === 201 || s === 422)).toBe(true);
    expect([await stockOf(p), await stockOf(q)]).toEqual([0, 0]);
    expect([await soldOf(p), await soldOf(q)]).toEqual([6, 6]);
  });

  it('random quantities over three products: what was sold plus what is left is what there was', async () => {
    const random = prng(27);
    const initial = [9, 14, 5];
    const products: number[] = [];
    for (const units of initial)
      products.push(await newProduct(a, tenantId, 100, undefined, units));
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const lines = products
          .filter(() => random() < 0.6)
          .map((id) => [id, 1 + Math.floor(random() * 3)] as [number, number]);
        return order(
          i,
          lines.length === 0 ? [[products[0], 1]] : i % 3 === 0 ? lines.toReversed() : lines,
        );
      }),
    );
    expect(answers.every((r) => r.status === 201 || r.status === 422)).toBe(true);
    for (const [index, id] of products.entries()) {
      const left = await stockOf(id);
      expect(left).toBeGreaterThanOrEqual(0);
      expect(left + (await soldOf(id))).toBe(initial[index]);
    }
  });
});
