import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CreateOrderDto } from '../src/orders/dto/create-order.dto.js';
import { ListOrdersQuery } from '../src/orders/dto/order-queries.dto.js';
import { newApp, newProduct, newTenant, tokenFor } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

interface Ctx {
  tenantId: number;
  token: string;
  products: number[];
}

describe('orders', () => {
  let t: TestApp;
  let a: Ctx;

  async function newShop(currency = 'USD'): Promise<Ctx> {
    const tenant = await newTenant(t, currency);
    const products = [
      await newProduct(t, tenant.id, 10),
      await newProduct(t, tenant.id, 1999),
      await newProduct(t, tenant.id, 500),
    ];
    return { tenantId: tenant.id, token: await tokenFor(t, await newApp(t, tenant.id)), products };
  }

  const orderBody = (ctx: Ctx, overrides: Record<string, unknown> = {}) => ({
    customer: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+90 555 000 0000' },
    shipping_address: {
      country: 'TR',
      city: 'Istanbul',
      district: 'Kadikoy',
      address: 'Moda Cd. 1',
      postal_code: '34710',
    },
    items: [{ product_id: ctx.products[0], quantity: 3 }],
    ...overrides,
  });

  const create = (ctx: Ctx, body: unknown) =>
    t.http
      .post('/v1/orders')
      .set('authorization', `Bearer ${ctx.token}`)
      .send(body as object);
  const get = (ctx: Ctx, path: string) =>
    t.http.get(path).set('authorization', `Bearer ${ctx.token}`);

  beforeAll(async () => {
    t = await createTestApp();
    a = await newShop();
  });
  afterAll(() => t.close());

  it('a valid order body and list query take the validation fast path (validated.ts)', async () => {
    const body = vi.spyOn(CreateOrderDto, 'fastParse');
    const query = vi.spyOn(ListOrdersQuery, 'fastParse');
    try {
      expect((await create(a, orderBody(a))).status).toBe(201);
      expect((await get(a, '/v1/orders?page=1&limit=20&status=pending')).status).toBe(200);
      expect(body.mock.results.map((r) => r.value)).toEqual([expect.any(CreateOrderDto)]);
      expect(query.mock.results.map((r) => r.value)).toEqual([expect.any(ListOrdersQuery)]);
    } finally {
      body.mockRestore();
      query.mockRestore();
    }
  });

  describe('POST /v1/orders', () => {
    it('201 with the full Order, prices from the catalog, status pending, Location', async () => {
      const res = await create(
        a,
        orderBody(a, {
          items: [
            { product_id: a.products[0], quantity: 3 },
            { product_id: a.products[1], quantity: 3 },
          ],
        }),
      );
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(`/v1/orders/${res.body.id}`);
      expect(res.body).toEqual({
        id: expect.any(Number),
        version: 1,
        status: 'pending',
        fulfillment_status: 'unfulfilled',
        total: 60.27,
        refunded_total: 0,
        currency: 'USD',
        customer: {
          id: null,
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          phone: '+90 555 000 0000',
        },
        shipping_address: {
          country: 'TR',
          city: 'Istanbul',
          district: 'Kadikoy',
          address: 'Moda Cd. 1',
          postal_code: '34710',
        },
        items: [
          {
            id: expect.any(Number),
            product_id: a.products[0],
            quantity: 3,
            fulfilled_quantity: 0,
            refunded_quantity: 0,
            sku: expect.any(String),
            name: 'Test product',
            unit_price: 0.1,
            total: 0.3,
          },
          {
            id: expect.any(Number),
            product_id: a.products[1],
            quantity: 3,
            fulfilled_quantity: 0,
            refunded_quantity: 0,
            sku: expect.any(String),
            name: 'Test product',
            unit_price: 19.99,
            total: 59.97,
          },
        ],
        note: null,
        tags: [],
        metadata: {},
        cancellation: null,
        source: 'api',
        marketplace: null,
        external_order_id: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        updated_at: expect.any(String),
      });
      const read = await get(a, res.headers.location);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(res.body);
    });

    it('uses the tenant currency', async () => {
      const lira = await newShop('TRY');
      const res = await create(lira, orderBody(lira));
      expect(res.body.currency).toBe('TRY');
    });

    it('a 100-line order: totals equal the sum of lines exactly', async () => {
      const items = Array.from({ length: 100 }, (_, i) => ({
        product_id: a.products[i % 3],
        quantity: (i % 9) + 1,
      }));
      const res = await create(a, orderBody(a, { items }));
      expect(res.status).toBe(201);
      expect(res.body.items).toHaveLength(100);
      const cents = (n: number) => Math.round(n * 100);
      const sum = (
        res.body.items as Array<{ total: number; unit_price: number; quantity: number }>
      ).reduce((s, l) => {
        expect(cents(l.total)).toBe(cents(l.unit_price) * l.quantity);
        return s + cents(l.total);
      }, 0);
      expect(cents(res.body.total)).toBe(sum);
    });

    it('links by email (any case) only a customer whose email is verified; by id always', async () => {
      const [unverified] = await t.dataSource.query(
        `INSERT INTO customers (tenant_id, name, email, password_hash) VALUES ($1, 'Eve', 'Eve@Example.com', 'x') RETURNING id`,
        [a.tenantId],
      );
      const guest = await create(
        a,
        orderBody(a, { customer: { name: 'E', email: 'eve@example.com' } }),
      );
      expect(guest.body.customer.id).toBeNull();
      expect(unverified.id).toBeGreaterThan(0);

      const [customer] = await t.dataSource.query(
        `INSERT INTO customers (tenant_id, name, email, password_hash, email_verified) VALUES ($1, 'Grace', 'Grace@Example.com', 'x', true) RETURNING id`,
        [a.tenantId],
      );
      const byEmail = await create(
        a,
        orderBody(a, { customer: { name: 'Grace', email: 'grace@EXAMPLE.com' } }),
      );
      expect(byEmail.body.customer.id).toBe(customer.id);
      const byId = await create(
        a,
        orderBody(a, { customer: { id: customer.id, name: 'Grace', email: 'other@example.com' } }),
      );
      expect(byId.body.customer.id).toBe(customer.id);
    });

    it('unknown customer.id → 422 unknown_customer (another tenant’s customer too)', async () => {
      const other = await newShop();
      const [foreign] = await t.dataSource.query(
        `INSERT INTO customers (tenant_id, name, email, password_hash) VALUES ($1, 'F', 'f@example.com', 'x') RETURNING id`,
        [other.tenantId],
      );
      for (const id of [999_999, foreign.id]) {
        const res = await create(
          a,
          orderBody(a, { customer: { id, name: 'X', email: 'x@example.com' } }),
        );
        expect(res.status).toBe(422);
        expect(res.body.error).toBe('unknown_customer');
        expect(res.body.details).toEqual([
          { field: 'customer.id', message: 'is not a customer of this tenant' },
        ]);
      }
    });

    it('unknown, inactive or foreign products → 422 unknown_product listing each line', async () => {
      const other = await newShop();
      const [inactive] = await t.dataSource.query(
        `INSERT INTO products (tenant_id, sku, name, price_minor, active) VALUES ($1, 'OFF', 'Off', 100, false) RETURNING id`,
        [a.tenantId],
      );
      const res = await create(
        a,
        orderBody(a, {
          items: [
            { product_id: a.products[0], quantity: 1 },
            { product_id: 987_654, quantity: 1 },
            { product_id: inactive.id, quantity: 1 },
            { product_id: other.products[0], quantity: 1 },
          ],
        }),
      );
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('unknown_product');
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual([
        'items[1].product_id',
        'items[2].product_id',
        'items[3].product_id',
      ]);
      expect(res.body.details[0]).toEqual({
        field: 'items[1].product_id',
        message: 'product 987654 is not in the active catalog',
      });
    });

    const long = (n: number) => 'x'.repeat(n);
    const invalid: Array<[string, (ctx: Ctx) => unknown, string]> = [
      ['empty body', () => ({}), 'customer'],
      ['items missing', (c) => ({ ...orderBody(c), items: undefined }), 'items'],
      ['items empty', (c) => orderBody(c, { items: [] }), 'items'],
      [
        '101 items',
        (c) =>
          orderBody(c, {
            items: Array.from({ length: 101 }, () => ({ product_id: c.products[0], quantity: 1 })),
          }),
        'items',
      ],
      [
        'items not an array',
        (c) => orderBody(c, { items: { product_id: 1, quantity: 1 } }),
        'items',
      ],
      [
        'quantity 0',
        (c) => orderBody(c, { items: [{ product_id: c.products[0], quantity: 0 }] }),
        'items[0].quantity',
      ],
      [
        'quantity 10001',
        (c) => orderBody(c, { items: [{ product_id: c.products[0], quantity: 10001 }] }),
        'items[0].quantity',
      ],
      [
        'quantity 1.5',
        (c) => orderBody(c, { items: [{ product_id: c.products[0], quantity: 1.5 }] }),
        'items[0].quantity',
      ],
      [
        'quantity as a string',
        (c) => orderBody(c, { items: [{ product_id: c.products[0], quantity: '2' }] }),
        'items[0].quantity',
      ],
      [
        'product_id 0',
        () => ({ ...orderBody(a), items: [{ product_id: 0, quantity: 1 }] }),
        'items[0].product_id',
      ],
      [
        'product_id missing',
        () => ({ ...orderBody(a), items: [{ quantity: 1 }] }),
        'items[0].product_id',
      ],
      [
        'unknown item property',
        (c) => orderBody(c, { items: [{ product_id: c.products[0], quantity: 1, price: 0 }] }),
        'items[0].price',
      ],
      ['customer missing', (c) => ({ ...orderBody(c), customer: undefined }), 'customer'],
      ['customer not an object', (c) => orderBody(c, { customer: 'Ada' }), 'customer'],
      [
        'customer.name empty',
        (c) => orderBody(c, { customer: { name: '', email: 'a@b.io' } }),
        'customer.name',
      ],
      [
        'customer.name 201 chars',
        (c) => orderBody(c, { customer: { name: long(201), email: 'a@b.io' } }),
        'customer.name',
      ],
      [
        'customer.email missing',
        (c) => orderBody(c, { customer: { name: 'A' } }),
        'customer.email',
      ],
      [
        'customer.email malformed',
        (c) => orderBody(c, { customer: { name: 'A', email: 'not-an-email' } }),
        'customer.email',
      ],
      [
        'customer.id 0',
        (c) => orderBody(c, { customer: { id: 0, name: 'A', email: 'a@b.io' } }),
        'customer.id',
      ],
      [
        'customer unknown property',
        (c) => orderBody(c, { customer: { name: 'A', email: 'a@b.io', vip: true } }),
        'customer.vip',
      ],
      [
        'shipping_address missing',
        (c) => ({ ...orderBody(c), shipping_address: undefined }),
        'shipping_address',
      ],
      [
        'country missing',
        (c) => orderBody(c, { shipping_address: { city: 'I', address: 'A' } }),
        'shipping_address.country',
      ],
      [
        'city empty',
        (c) => orderBody(c, { shipping_address: { country: 'TR', city: '', address: 'A' } }),
        'shipping_address.city',
      ],
      [
        'address 201 chars',
        (c) => orderBody(c, { shipping_address: { country: 'TR', city: 'I', address: long(201) } }),
        'shipping_address.address',
      ],
      [
        'district empty',
        (c) =>
          orderBody(c, {
            shipping_address: { country: 'TR', city: 'I', address: 'A', district: '' },
          }),
        'shipping_address.district',
      ],
      [
        'postal_code 201 chars',
        (c) =>
          orderBody(c, {
            shipping_address: { country: 'TR', city: 'I', address: 'A', postal_code: long(201) },
          }),
        'shipping_address.postal_code',
      ],
      ['unknown top-level property', (c) => orderBody(c, { total: 0 }), 'total'],
    ];

    it.each(invalid)('%s → 400 validation_failed naming %s', async (_name, body, field) => {
      const res = await create(a, body(a));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('a quantity sent as a string is told it must be an integer, first and only', async () => {
      const res = await create(
        a,
        orderBody(a, { items: [{ product_id: a.products[0], quantity: '2' }] }),
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'validation_failed',
        error_description: 'items[0].quantity must be an integer number',
        details: [{ field: 'items[0].quantity', message: 'must be an integer number' }],
      });
    });

    it('accepts names at the 200-character bound', async () => {
      const res = await create(a, orderBody(a, { customer: { name: long(200), email: 'a@b.io' } }));
      expect(res.status).toBe(201);
    });

    it('a JSON array body → 400 validation_failed', async () => {
      const res = await create(a, [orderBody(a)]);
      expect(res.status).toBe(400);
    });
  });

  describe('GET /v1/orders', () => {
    let shop: Ctx;
    const ids: number[] = [];
    beforeAll(async () => {
      shop = await newShop();
      for (let i = 0; i < 5; i++) ids.push((await create(shop, orderBody(shop))).body.id as number);
    });

    it('lists newest first with meta', async () => {
      const res = await get(shop, '/v1/orders');
      expect(res.status).toBe(200);
      expect(res.body.data.map((o: { id: number }) => o.id)).toEqual(ids.toReversed());
      expect(res.body.meta).toEqual({
        page: 1,
        limit: 20,
        total: 5,
        total_pages: 1,
        next_cursor: null,
        has_more: false,
      });
      expect(res.body.data[0]).toHaveProperty('status', 'pending');
      expect(res.body.data[0].items).toHaveLength(1);
    });

    it('pages: limit 2 gives 3 pages; a page past the end is empty', async () => {
      const p2 = await get(shop, '/v1/orders?page=2&limit=2');
      expect(p2.body.data.map((o: { id: number }) => o.id)).toEqual([ids[2], ids[1]]);
      expect(p2.body.meta).toEqual({
        page: 2,
        limit: 2,
        total: 5,
        total_pages: 3,
        next_cursor: expect.any(String),
        has_more: true,
      });
      const past = await get(shop, '/v1/orders?page=9&limit=2');
      expect(past.status).toBe(200);
      expect(past.body).toEqual({
        data: [],
        meta: { page: 9, limit: 2, total: 5, total_pages: 3, next_cursor: null, has_more: false },
      });
    });

    it.each([
      [0, 3, 0],
      [1, 3, 1],
      [3, 3, 1],
      [4, 3, 2],
    ])('total_pages for %i rows with limit %i is %i', async (rows, limit, pages) => {
      const fresh = await newShop();
      for (let i = 0; i < rows; i++) await create(fresh, orderBody(fresh));
      const res = await get(fresh, `/v1/orders?limit=${limit}`);
      expect(res.body.meta).toEqual({
        page: 1,
        limit,
        total: rows,
        total_pages: pages,
        next_cursor: res.body.meta.next_cursor,
        has_more: rows > limit,
      });
      expect(res.body.meta.next_cursor === null).toBe(rows <= limit);
    });

    it('filters by status', async () => {
      await t.http
        .post(`/v1/orders/${ids[0]}/status`)
        .set('authorization', `Bearer ${shop.token}`)
        .send({ status: 'paid' });
      const paid = await get(shop, '/v1/orders?status=paid');
      expect(paid.body.data.map((o: { id: number }) => o.id)).toEqual([ids[0]]);
      expect(paid.body.meta.total).toBe(1);
      const cancelled = await get(shop, '/v1/orders?status=cancelled');
      expect(cancelled.body).toEqual({
        data: [],
        meta: { page: 1, limit: 20, total: 0, total_pages: 0, next_cursor: null, has_more: false },
      });
    });

    it.each([
      'page=0',
      'limit=0',
      'limit=101',
      'status=bogus',
      'page=abc',
      'page=1.5',
      'limit=-1',
      'page=',
      'sort=id',
    ])('%s → 400 validation_failed with details (never clamped)', async (query) => {
      const res = await get(shop, `/v1/orders?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.length).toBeGreaterThan(0);
    });

    it('accepts the bounds limit=1 and limit=100', async () => {
      expect((await get(shop, '/v1/orders?limit=1')).body.data).toHaveLength(1);
      expect((await get(shop, '/v1/orders?limit=100')).status).toBe(200);
    });
  });

  describe('GET /v1/orders/{id}', () => {
    it.each(['abc', '0', '-1', '1.5', '1e3'])('id %s → 400 validation_failed', async (id) => {
      const res = await get(a, `/v1/orders/${id}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'validation_failed',
        error_description: 'id must be a positive integer',
        details: [{ field: 'id', message: 'must be a positive integer' }],
      });
    });

    it('unknown id → 404 not_found', async () => {
      const res = await get(a, '/v1/orders/99999999');
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('not_found');
    });
  });

  describe('tenant isolation', () => {
    it("tenant B's token gets 404 on every tenant A order and never sees them in any list page", async () => {
      const shopA = await newShop();
      const shopB = await newShop();
      const idsA: number[] = [];
      for (let i = 0; i < 3; i++)
        idsA.push((await create(shopA, orderBody(shopA))).body.id as number);
      const ownB = (await create(shopB, orderBody(shopB))).body.id as number;
      for (const id of idsA) {
        expect((await get(shopB, `/v1/orders/${id}`)).status).toBe(404);
        const change = await t.http
          .post(`/v1/orders/${id}/status`)
          .set('authorization', `Bearer ${shopB.token}`)
          .send({ status: 'paid' });
        expect(change.status).toBe(404);
      }
      for (const query of [
        '',
        '?limit=1&page=1',
        '?limit=1&page=2',
        '?status=pending',
        '?limit=100',
      ]) {
        const list = await get(shopB, `/v1/orders${query}`);
        for (const order of list.body.data as Array<{ id: number }>)
          expect(idsA).not.toContain(order.id);
      }
      expect((await get(shopB, '/v1/orders')).body.data.map((o: { id: number }) => o.id)).toEqual([
        ownB,
      ]);
    });
  });

  describe('POST /v1/orders/{id}/status', () => {
    const change = (ctx: Ctx, id: number, status: unknown) =>
      t.http
        .post(`/v1/orders/${id}/status`)
        .set('authorization', `Bearer ${ctx.token}`)
        .send({ status });

    it('follows the process and records each change with its time', async () => {
      const id = (await create(a, orderBody(a))).body.id as number;
      for (const status of ['paid', 'preparing', 'shipped', 'refunded']) {
        const res = await change(a, id, status);
        expect(res.status).toBe(200);
        expect(res.body.status).toBe(status);
        expect(res.body.id).toBe(id);
      }
      const history: Array<{ from_status: string; to_status: string; changed_at: Date }> =
        await t.dataSource.query(
          'SELECT from_status, to_status, changed_at FROM order_status_changes WHERE tenant_id = $1 AND order_id = $2 ORDER BY id',
          [a.tenantId, id],
        );
      expect(history.map((h) => `${h.from_status}>${h.to_status}`)).toEqual([
        'pending>paid',
        'paid>preparing',
        'preparing>shipped',
        'shipped>refunded',
      ]);
      expect(history.every((h) => h.changed_at instanceof Date)).toBe(true);
    });

    it.each([
      [[], 'shipped'],
      [[], 'pending'],
      [['cancelled'], 'paid'],
      [['paid'], 'cancelled'],
      [['paid', 'refunded'], 'preparing'],
    ])('after %j, → %s is 409 invalid_transition', async (path, to) => {
      const id = (await create(a, orderBody(a))).body.id as number;
      for (const status of path) expect((await change(a, id, status)).status).toBe(200);
      const res = await change(a, id, to);
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('invalid_transition');
    });

    it.each([['bogus'], [''], [null], [1]])('status %j → 400 validation_failed', async (status) => {
      const id = (await create(a, orderBody(a))).body.id as number;
      const res = await change(a, id, status);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
    });

    it('no body at all → 400 validation_failed', async () => {
      const id = (await create(a, orderBody(a))).body.id as number;
      const res = await t.http
        .post(`/v1/orders/${id}/status`)
        .set('authorization', `Bearer ${a.token}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
    });

    it('needs orders:write', async () => {
      const tenant = await newTenant(t);
      const reader = await tokenFor(t, await newApp(t, tenant.id, ['orders:read']));
      const res = await t.http
        .post('/v1/orders/1/status')
        .set('authorization', `Bearer ${reader}`)
        .send({ status: 'paid' });
      expect(res.status).toBe(403);
      expect(res.headers['www-authenticate']).toBe(
        'Bearer error="insufficient_scope", scope="orders:write"',
      );
    });

    it('concurrent conflicting changes: exactly one wins, the others get 409, history is consistent', async () => {
      const id = (await create(a, orderBody(a))).body.id as number;
      const attempts = [
        'paid',
        'cancelled',
        'paid',
        'cancelled',
        'paid',
        'cancelled',
        'paid',
        'cancelled',
      ];
      const results = await Promise.all(attempts.map((s) => change(a, id, s)));
      const winners = results.filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      expect(results.filter((r) => r.status === 409)).toHaveLength(attempts.length - 1);
      const final = await get(a, `/v1/orders/${id}`);
      expect(final.body.status).toBe(winners[0].body.status);
      const history: unknown[] = await t.dataSource.query(
        'SELECT 1 FROM order_status_changes WHERE tenant_id = $1 AND order_id = $2',
        [a.tenantId, id],
      );
      expect(history).toHaveLength(1);
    });
  });
});
