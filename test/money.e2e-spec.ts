import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, newTenant, tokenFor } from './support/factories.js';
import { settleFeed } from './support/feed.js';
import { runCli } from './support/processes.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** An event of the feed, as far as these checks read it. */
type FeedEvent = { type: string; data: { object: { id: number } } };

/** 10^13 minor units: the most any amount may be (CONTRACT 3.4 says "beyond": this is allowed). */
const MAX_USD = 100_000_000_000;

/**
 * Money in the tenant's currency (CONTRACT 3.4, docs/BEHAVIOUR.md#money): ISO 4217 digits
 * decide what is accepted and how amounts are written, and nothing goes beyond 10^13 minor units.
 */
describe('money in every currency', () => {
  let t: TestApp;
  const shops: Record<'JPY' | 'KWD' | 'USD', { tenantId: number; token: string }> = {} as never;

  beforeAll(async () => {
    t = await createTestApp({ API_RATE_LIMIT_PER_TOKEN: '100000' });
    for (const currency of ['JPY', 'KWD', 'USD'] as const) {
      const tenant = await newTenant(t, currency);
      shops[currency] = {
        tenantId: tenant.id,
        token: await tokenFor(t, await newApp(t, tenant.id)),
      };
    }
  });
  afterAll(() => t.close());

  const send = (
    currency: keyof typeof shops,
    method: 'post' | 'patch',
    path: string,
    body: object,
  ) => t.http[method](path).set('authorization', `Bearer ${shops[currency].token}`).send(body);
  const get = (currency: keyof typeof shops, path: string) =>
    t.http.get(path).set('authorization', `Bearer ${shops[currency].token}`);
  const sku = () => `M-${randomBytes(4).toString('hex')}`;

  async function product(currency: keyof typeof shops, price: number) {
    const res = await send(currency, 'post', '/v1/products', { sku: sku(), name: 'Thing', price });
    expect([res.status, res.body.error]).toEqual([201, undefined]);
    return res.body;
  }

  async function paidOrder(
    currency: keyof typeof shops,
    items: Array<{ product_id: number; quantity: number }>,
  ) {
    const res = await send(currency, 'post', '/v1/orders', {
      customer: { name: 'Ada', email: `ada-${currency.toLowerCase()}@example.com` },
      shipping_address: { country: 'JP', city: 'Tokyo', address: 'Ginza 1' },
      items,
    });
    expect([res.status, res.body.error]).toEqual([201, undefined]);
    const paid = await send(currency, 'post', `/v1/orders/${res.body.id}/status`, {
      status: 'paid',
    });
    expect(paid.status).toBe(200);
    return paid.body;
  }

  async function storedPrice(id: number): Promise<number> {
    const [row] = await t.dataSource.query('SELECT price_minor::text FROM products WHERE id = $1', [
      id,
    ]);
    return Number(row.price_minor);
  }

  function refused(res: { status: number; body: unknown }, field: string, message: string) {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'validation_failed',
      error_description: `${field} ${message}`,
      details: [{ field, message }],
    });
  }

  describe('JPY (no minor unit)', () => {
    it('refuses a price of 100.5 and takes and writes 1200 as 1200', async () => {
      const half = await send('JPY', 'post', '/v1/products', {
        sku: sku(),
        name: 'x',
        price: 100.5,
      });
      refused(half, 'price', 'must be a whole number in JPY (it has no minor unit)');

      const yen = await product('JPY', 1200);
      expect(yen).toMatchObject({ price: 1200, currency: 'JPY' });
      expect(await storedPrice(yen.id)).toBe(1200);
      expect((await get('JPY', `/v1/products/${yen.id}`)).text).toContain('"price":1200,');

      const patched = await send('JPY', 'patch', `/v1/products/${yen.id}`, { price: 99.9 });
      refused(patched, 'price', 'must be a whole number in JPY (it has no minor unit)');
    });

    it('writes an order in yen and refuses a refund of 0.01', async () => {
      const yen = await product('JPY', 1200);
      const order = await paidOrder('JPY', [{ product_id: yen.id, quantity: 3 }]);
      expect(order).toMatchObject({
        currency: 'JPY',
        total: 3600,
        refunded_total: 0,
        items: [{ unit_price: 1200, total: 3600 }],
      });

      const cent = await send('JPY', 'post', `/v1/orders/${order.id}/refunds`, { amount: 0.01 });
      refused(cent, 'amount', 'must be a whole number in JPY (it has no minor unit)');

      const refund = await send('JPY', 'post', `/v1/orders/${order.id}/refunds`, { amount: 100 });
      expect(refund.status).toBe(201);
      expect(refund.body).toMatchObject({ amount: 100, currency: 'JPY' });
      const after = await get('JPY', `/v1/orders/${order.id}`);
      expect(after.body).toMatchObject({ total: 3600, refunded_total: 100 });

      // Beyond what is left, the message says how much is, in yen.
      const tooMuch = await send('JPY', 'post', `/v1/orders/${order.id}/refunds`, { amount: 3501 });
      expect(tooMuch.status).toBe(422);
      expect(tooMuch.body.details).toEqual([
        { field: 'amount', message: 'at most 3500 is left to refund' },
      ]);
    });

    it('refuses an import whose price has decimals, at once', async () => {
      const id = `JP-${randomBytes(4).toString('hex')}`;
      const res = await send('JPY', 'post', '/v1/marketplace/orders/import', {
        ...importBody(id),
        items: [{ sku: 'S', name: 'N', quantity: 2, unit_price: 100.5, total: 201 }],
      });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        {
          field: 'items[0].unit_price',
          message: 'must be a whole number in JPY (it has no minor unit)',
        },
      ]);
      expect((await get('JPY', `/v1/marketplace/orders/import/rakuten/${id}`)).status).toBe(404);
    });
  });

  describe('KWD (three digits)', () => {
    it('takes 1.234 and writes it as 1.234, in the product, the order, the refund and the events', async () => {
      const fils = await product('KWD', 1.234);
      expect(fils).toMatchObject({ price: 1.234, currency: 'KWD' });
      expect(await storedPrice(fils.id)).toBe(1234);

      const order = await paidOrder('KWD', [{ product_id: fils.id, quantity: 2 }]);
      expect(order).toMatchObject({ total: 2.468, items: [{ unit_price: 1.234, total: 2.468 }] });
      const refund = await send('KWD', 'post', `/v1/orders/${order.id}/refunds`, { amount: 0.001 });
      expect(refund.status).toBe(201);
      expect(refund.body.amount).toBe(0.001);

      // The feed serves events once every older transaction of the server has ended.
      await settleFeed(t);
      const events = await get('KWD', `/v1/events?types=order.created,refund.created`);
      expect(events.status).toBe(200);
      const feed: FeedEvent[] = events.body.data;
      const created = feed.find((e) => e.type === 'order.created' && e.data.object.id === order.id);
      expect(created?.data.object).toMatchObject({ total: 2.468, items: [{ unit_price: 1.234 }] });
      const refunded = feed.find((e) => e.type === 'refund.created');
      expect(refunded?.data).toMatchObject({
        object: { amount: 0.001 },
        order: { refunded_total: 0.001 },
      });

      const exported = await send('KWD', 'post', '/v1/customers/data-exports', {
        email: 'ada-kwd@example.com',
      });
      expect(exported.status).toBe(200);
      expect(exported.body.orders[0]).toMatchObject({ total: 2.468, refunds: [{ amount: 0.001 }] });
    });

    it('refuses a fourth digit', async () => {
      const res = await send('KWD', 'post', '/v1/products', {
        sku: sku(),
        name: 'x',
        price: 1.2345,
      });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        {
          field: 'price',
          message:
            "must be a non-negative number with at most 3 decimals; the tenant currency's minor digits decide how many",
        },
      ]);
    });
  });

  describe('the bound: 10^13 minor units', () => {
    it('takes a price of exactly 10^13 minor units and refuses one more', async () => {
      const max = await product('USD', MAX_USD);
      expect(max.price).toBe(MAX_USD);
      expect(await storedPrice(max.id)).toBe(10 ** 13);

      const over = await send('USD', 'post', '/v1/products', {
        sku: sku(),
        name: 'x',
        price: MAX_USD + 0.01,
      });
      refused(over, 'price', 'must not go beyond 100000000000.00 USD (10^13 minor units)');
      const patched = await send('USD', 'patch', `/v1/products/${max.id}`, { price: 1e20 });
      refused(patched, 'price', 'must not go beyond 100000000000.00 USD (10^13 minor units)');
    });

    it('refuses an order whose line or total would go beyond it, and writes nothing', async () => {
      const max = await product('USD', MAX_USD);
      const big = await product('USD', 60_000_000_000);
      const nearly = await product('USD', 99_999_999_999.99);
      const before = await orderCount(shops.USD.tenantId);

      const orderOf = (items: Array<{ product_id: number; quantity: number }>) =>
        send('USD', 'post', '/v1/orders', {
          customer: { name: 'Ada', email: 'ada@example.com' },
          shipping_address: { country: 'US', city: 'NYC', address: '5th Ave 1' },
          items,
        });
      // The order: 9 × 9,999,999,999,999.99 once answered a total of 89999999999999.9.
      const nine = await orderOf([{ product_id: nearly.id, quantity: 9 }]);
      expect(nine.status).toBe(400);
      expect(nine.body).toMatchObject({
        error: 'validation_failed',
        details: [
          { field: 'items[0].quantity', message: expect.stringContaining('10^13 minor units') },
        ],
      });
      const sum = await orderOf([
        { product_id: big.id, quantity: 1 },
        { product_id: big.id, quantity: 1 },
      ]);
      expect(sum.status).toBe(400);
      expect(sum.body.details).toEqual([
        {
          field: 'items',
          message:
            'make the order total (the sum of the line totals) go beyond 10^13 minor units of the currency (100000000000.00 in a two-digit one)',
        },
      ]);
      expect(await orderCount(shops.USD.tenantId)).toBe(before);

      // At the bound exactly, and printed exactly.
      const atMax = await orderOf([{ product_id: max.id, quantity: 1 }]);
      expect(atMax.status).toBe(201);
      expect(atMax.body.total).toBe(MAX_USD);
      const exact = await orderOf([{ product_id: nearly.id, quantity: 1 }]);
      expect(exact.text).toContain('"total":99999999999.99,');
    });

    it('refuses an import beyond it synchronously (400, no import, no job)', async () => {
      const id = `BIG-${randomBytes(4).toString('hex')}`;
      const line = {
        sku: 'S',
        name: 'N',
        quantity: 1,
        unit_price: 9_999_999_999_999.99,
        total: 9_999_999_999_999.99,
      };
      const huge = await send('USD', 'post', '/v1/marketplace/orders/import', {
        ...importBody(id),
        items: Array.from({ length: 100 }, () => line),
      });
      expect(huge.status).toBe(400);
      expect(huge.body.error).toBe('validation_failed');
      expect(huge.body.details[0]).toEqual({
        field: 'items[0].unit_price',
        message: 'must not go beyond 100000000000.00 USD (10^13 minor units)',
      });

      // Every line within the bound, their sum beyond it.
      const within = {
        sku: 'S',
        name: 'N',
        quantity: 2,
        unit_price: 30_000_000_000,
        total: 60_000_000_000,
      };
      const sum = await send('USD', 'post', '/v1/marketplace/orders/import', {
        ...importBody(id),
        items: [within, within],
      });
      expect(sum.status).toBe(400);
      expect(sum.body.details).toEqual([
        { field: 'items', message: expect.stringContaining('make the order total') },
      ]);
      expect((await get('USD', `/v1/marketplace/orders/import/rakuten/${id}`)).status).toBe(404);
      const [{ count }] = await t.dataSource.query(
        'SELECT count(*)::int AS count FROM marketplace_imports WHERE tenant_id = $1',
        [shops.USD.tenantId],
      );
      expect(count).toBe(0);
    });
  });

  describe('the admin CLI', () => {
    const env = () => ({
      DATABASE_URL: t.databaseUrl,
      DATA_DIR: t.config.DATA_DIR,
      LOG_LEVEL: 'silent',
    });

    it('refuses a tenant currency that is not ISO 4217', async () => {
      // HRK was withdrawn in 2023 (src/common/currency.spec.ts checks the others).
      const result = await runCli(['tenant', 'create', '--name', 'T', '--currency', 'HRK'], env());
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('currency must be an ISO 4217 code, got "HRK"');
    });

    it("checks prices against the tenant's currency, naming the CSV line", async () => {
      const tenant = String(shops.JPY.tenantId);
      const half = await runCli(
        [
          'product',
          'create',
          '--tenant',
          tenant,
          '--sku',
          sku(),
          '--name',
          'x',
          '--price',
          '100.5',
        ],
        env(),
      );
      expect(half.status).toBe(1);
      expect(half.stderr).toContain(
        'price must be a whole number in JPY (it has no minor unit), got "100.5"',
      );

      const csv = join(t.config.DATA_DIR, 'yen.csv');
      await writeFile(
        csv,
        `sku,name,price\n${sku()},ok,1200\n${sku()},bad,99.5\n${sku()},huge,10000000000001\n`,
      );
      const bad = await runCli(['product', 'import', '--tenant', tenant, '--file', csv], env());
      expect(bad.status).toBe(1);
      expect(bad.stderr).toContain('line 3: price must be a whole number in JPY');
      expect(bad.stderr).toContain(
        'line 4: price must not go beyond 10000000000000 JPY (10^13 minor units)',
      );

      const ok = await runCli(
        [
          'product',
          'create',
          '--tenant',
          String(shops.KWD.tenantId),
          '--sku',
          sku(),
          '--name',
          'x',
        ].concat(['--price', '1.234', '--json']),
        env(),
      );
      expect(ok.status).toBe(0);
      expect(JSON.parse(ok.stdout)).toMatchObject({ price: 1.234, currency: 'KWD' });
    });
  });

  async function orderCount(tenantId: number): Promise<number> {
    const [{ count }] = await t.dataSource.query(
      'SELECT count(*)::int AS count FROM orders WHERE tenant_id = $1',
      [tenantId],
    );
    return count;
  }
});

function importBody(externalOrderId: string) {
  return {
    marketplace: 'rakuten',
    external_order_id: externalOrderId,
    customer: { name: 'Ada', email: 'ada@example.com' },
    shipping_address: { country: 'JP', city: 'Tokyo', address: 'Ginza 1' },
  };
}
