import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../src/auth/request-context.js';
import { Transactions } from '../src/database/transactions.js';
import { ORDER_STATUSES, type OrderStatus } from '../src/orders/order-status.js';
import { OrdersService } from '../src/orders/orders.service.js';
import { Db } from '../src/database/sql/db.js';
import { OrderListRepository } from '../src/orders/order-list.repository.js';
import { within } from './support/eventually.js';
import { newShop as newShopFor, type Shop } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { prng } from './support/prng.js';

type Query = Record<string, string>;

interface ListedOrder {
  id: number;
  status: OrderStatus;
  updated_at: string;
  created_at: string;
}

interface ListBody {
  data: ListedOrder[];
  meta: {
    page?: number;
    limit: number;
    total?: number;
    total_pages?: number;
    next_cursor: string | null;
    has_more: boolean;
  };
}

/** An order inserted for the brute-force comparison; instants as canonical UTC text. */
interface Row {
  id: number;
  status: OrderStatus;
  customerId: number | null;
  email: string;
  source: 'api' | 'marketplace';
  marketplace: string | null;
  externalId: string | null;
  created: string;
  updated: string;
}

const SORTS = ['-created_at', 'created_at', '-updated_at', 'updated_at'] as const;
type Sort = (typeof SORTS)[number];

const PASSWORD = 'correct horse battery staple';

/** Microseconds since the epoch → canonical UTC text, or RFC 3339 in `offsetMinutes`. */
function instantText(micros: bigint, offsetMinutes = 0): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const ms = Number(micros / 1000n);
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 19);
  const fraction = String(micros % 1_000_000n).padStart(6, '0');
  if (offsetMinutes === 0) return `${local}.${fraction}Z`;
  const abs = Math.abs(offsetMinutes);
  return `${local}.${fraction}${offsetMinutes < 0 ? '-' : '+'}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

describe('sync-grade order listing', () => {
  let t: TestApp;

  const newShop = () => newShopFor(t, 1250);

  /**
   * Waits until the ascending walks' horizon is past every order written so far (it trails
   * the oldest open transaction by a second), so they can serve them all.
   */
  const pastHorizon = () =>
    within(10_000, async () => {
      const horizon = await new OrderListRepository().horizon(
        new Db(t.dataSource.manager).shared(),
      );
      const [{ past }] = await t.dataSource.query<Array<{ past: boolean }>>(
        `SELECT COALESCE((SELECT max(greatest(created_at, updated_at)) FROM orders) < $1::timestamptz, true) AS past`,
        [horizon],
      );
      return past;
    });

  const list = (token: string, query: Query, path = '/v1/orders') =>
    t.http.get(path).query(query).set('authorization', `Bearer ${token}`);

  async function listOk(token: string, query: Query, path?: string): Promise<ListBody> {
    const res = await list(token, query, path);
    if (res.status !== 200) throw new Error(`list failed: ${res.status} ${res.text}`);
    return res.body as ListBody;
  }

  const createOrder = async (s: Shop, email = 'ada@example.com'): Promise<ListedOrder> => {
    const res = await t.http
      .post('/v1/orders')
      .set('authorization', `Bearer ${s.token}`)
      .send({
        customer: { name: 'Ada', email },
        shipping_address: { country: 'TR', city: 'Istanbul', address: 'Moda 1' },
        items: [{ product_id: s.product, quantity: 1 }],
      });
    if (res.status !== 201) throw new Error(`order not created: ${res.status} ${res.text}`);
    return res.body as ListedOrder;
  };

  const NEXT: Partial<Record<OrderStatus, OrderStatus>> = {
    pending: 'paid',
    paid: 'preparing',
    preparing: 'shipped',
    shipped: 'refunded',
  };
  /** Moves the order one step along the process; false when it is at an end. */
  const advance = async (s: Shop, order: { id: number; status: OrderStatus }) => {
    const to = NEXT[order.status];
    if (!to) return false;
    const res = await t.http
      .post(`/v1/orders/${order.id}/status`)
      .set('authorization', `Bearer ${s.token}`)
      .send({ status: to });
    if (res.status !== 200) throw new Error(`status change failed: ${res.status} ${res.text}`);
    order.status = to;
    return true;
  };

  async function newCustomerSession(
    s: Shop,
    email: string,
  ): Promise<{ id: number; token: string }> {
    const auth = { authorization: `Bearer ${s.token}` };
    const registered = await t.http
      .post('/v1/customers/register')
      .set(auth)
      .send({ name: 'Customer', email, password: PASSWORD });
    if (registered.status !== 201) throw new Error(`register failed: ${registered.text}`);
    const login = await t.http
      .post('/v1/customers/login')
      .set(auth)
      .send({ email, password: PASSWORD });
    if (login.status !== 200) throw new Error(`login failed: ${login.text}`);
    return { id: registered.body.id as number, token: login.body.token as string };
  }

  /** Every order the final state of the tenant holds, by id (the API's own view). */
  async function finalState(s: Shop): Promise<Map<number, ListedOrder>> {
    const rows: Array<{ id: number; updated_at: Date }> = await t.dataSource.query(
      'SELECT id, updated_at FROM orders WHERE tenant_id = $1',
      [s.tenantId],
    );
    return new Map(
      rows.map((r) => [r.id, { id: r.id, updated_at: r.updated_at.toISOString() } as ListedOrder]),
    );
  }

  /** Follows cursors to `has_more: false`, calling `between` after each page. */
  async function walkToEnd(
    token: string,
    first: Query,
    seen: ListedOrder[],
    between: () => Promise<void> = async () => {},
  ): Promise<string | null> {
    let body = await listOk(token, first);
    seen.push(...body.data);
    while (body.meta.has_more) {
      await between();
      body = await listOk(token, { cursor: body.meta.next_cursor!, limit: first.limit });
      seen.push(...body.data);
    }
    return body.meta.next_cursor;
  }

  beforeAll(async () => {
    t = await createTestApp({ API_RATE_LIMIT_PER_TOKEN: '1000000' });
  });
  afterAll(() => t.close());

  describe('every filter and sort against a brute force over random data', () => {
    let shop: Shop;
    let other: Shop;
    const rows: Row[] = [];
    const customers: Array<{ id: number; token: string }> = [];
    let minMicros = 0n;
    let maxMicros = 0n;
    const EMAILS = [
      'ada@example.com',
      'ADA@EXAMPLE.COM',
      'Ada@Example.com',
      'bob@example.com',
      'Bob@Example.COM',
      'carol@example.org',
      'dave@example.net',
    ];

    beforeAll(async () => {
      shop = await newShop();
      other = await newShop();
      customers.push(await newCustomerSession(shop, 'cust-one@example.com'));
      customers.push(await newCustomerSession(shop, 'cust-two@example.com'));
      const random = prng(20_260_102);
      const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
      const dayMicros = 86_400_000_000n;
      minMicros = BigInt(Date.now() - 10 * 86_400_000) * 1000n;
      maxMicros = minMicros + 6n * dayMicros;
      const spread = (days: number) => BigInt(Math.floor(random() * days * 86_400_000_000));
      // A few instants many orders share: ties must be broken by id, in both directions.
      const popular = Array.from({ length: 8 }, () => minMicros + spread(4));
      const external = { amazon: 0, ebay: 0 };
      const draft = Array.from({ length: 320 }, () => {
        const created = random() < 0.25 ? pick(popular) : minMicros + spread(4);
        const later = random() < 0.3 ? 0n : spread(2);
        const updated = random() < 0.15 ? pick(popular) + dayMicros : created + later;
        const marketplace = random() < 0.3 ? pick(['amazon', 'ebay'] as const) : null;
        return {
          status: pick(ORDER_STATUSES),
          customerId: random() < 0.4 ? pick(customers).id : null,
          email: pick(EMAILS),
          source: marketplace ? ('marketplace' as const) : ('api' as const),
          marketplace,
          // The same external id under both marketplaces: the filter must not confuse them.
          externalId: marketplace ? `X-${++external[marketplace]}` : null,
          created: instantText(created),
          updated: instantText(updated < created ? created : updated),
        };
      });
      const inserted: Array<{ id: number; n: string }> = await t.dataSource.query(
        `INSERT INTO orders (tenant_id, status, currency, total_minor, customer_id, customer_name,
           customer_email, shipping_country, shipping_city, shipping_address, source, marketplace,
           external_order_id, created_at, updated_at)
         SELECT $1, s.status, 'USD', 100, s.customer_id, s.n::text, s.email, 'TR', 'Istanbul',
           'Street 1', s.source, s.marketplace, s.ext, s.created::timestamptz, s.updated::timestamptz
         FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[],
           $8::text[], $9::text[]) WITH ORDINALITY
           AS s(status, customer_id, email, source, marketplace, ext, created, updated, n)
         RETURNING id, customer_name AS n`,
        [
          shop.tenantId,
          draft.map((d) => d.status),
          draft.map((d) => d.customerId),
          draft.map((d) => d.email),
          draft.map((d) => d.source),
          draft.map((d) => d.marketplace),
          draft.map((d) => d.externalId),
          draft.map((d) => d.created),
          draft.map((d) => d.updated),
        ],
      );
      for (const { id, n } of inserted) rows.push({ id, ...draft[Number(n) - 1] });
      // Another tenant with look-alike orders: never in any answer.
      await t.dataSource.query(
        `INSERT INTO orders (tenant_id, status, currency, total_minor, customer_name,
           customer_email, shipping_country, shipping_city, shipping_address, created_at)
         SELECT $1, 'pending', 'USD', 100, 'Other', 'ada@example.com', 'TR', 'Istanbul',
           'Street 1', $2::timestamptz + g * interval '1 hour'
         FROM generate_series(1, 40) AS g`,
        [other.tenantId, instantText(minMicros)],
      );
    });

    /** The brute force: the scope and filters over `rows`, in the sort's order. */
    function expected(filters: Query, sort: Sort, customerId?: number): number[] {
      const key = (r: Row) => (sort.endsWith('created_at') ? r.created : r.updated);
      const canon = (text: string) => {
        const date = new Date(text);
        const fraction = /\.(\d+)/.exec(text)?.[1] ?? '';
        const micros = BigInt(Math.floor(date.getTime() / 1000)) * 1_000_000n;
        return instantText(micros + BigInt(fraction.padEnd(6, '0')));
      };
      const statuses = filters.status?.split(',');
      const matching = rows.filter(
        (r) =>
          (customerId === undefined || r.customerId === customerId) &&
          (statuses === undefined || statuses.includes(r.status)) &&
          (filters.created_after === undefined || r.created >= canon(filters.created_after)) &&
          (filters.created_before === undefined || r.created < canon(filters.created_before)) &&
          (filters.updated_after === undefined || r.updated >= canon(filters.updated_after)) &&
          (filters.updated_before === undefined || r.updated < canon(filters.updated_before)) &&
          (filters.email === undefined || r.email.toLowerCase() === filters.email.toLowerCase()) &&
          (filters.customer_id === undefined || r.customerId === Number(filters.customer_id)) &&
          (filters.source === undefined || r.source === filters.source) &&
          (filters.marketplace === undefined || r.marketplace === filters.marketplace) &&
          (filters.external_order_id === undefined || r.externalId === filters.external_order_id),
      );
      const direction = sort.startsWith('-') ? -1 : 1;
      matching.sort(
        (a, b) => direction * (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : Math.sign(a.id - b.id)),
      );
      return matching.map((r) => r.id);
    }

    /** Filters over the inserted data (built once the data is there). */
    function filterArbitrary(): fc.Arbitrary<Query> {
      /** An instant near the data, often exactly an order's key, in some offset. */
      const instantArb = fc
        .tuple(
          fc.oneof(
            fc.nat().map((i) => {
              const r = rows[i % rows.length];
              return i % 2 === 0 ? r.created : r.updated;
            }),
            fc
              .bigInt({ min: minMicros - 86_400_000_000n, max: maxMicros })
              .map((micros) => instantText(micros)),
          ),
          fc.constantFrom(0, 0, 120, -330, 59),
        )
        .map(([canonical, offset]) => {
          const date = new Date(canonical);
          const micros = BigInt(date.getTime()) * 1000n + BigInt(canonical.slice(23, 26));
          return instantText(micros, offset);
        });

      const filtersArb: fc.Arbitrary<Query> = fc.record(
        {
          status: fc
            .subarray([...ORDER_STATUSES], { minLength: 1 })
            .chain((s) => fc.shuffledSubarray(s, { minLength: s.length }))
            .map((s) => s.join(',')),
          created_after: instantArb,
          created_before: instantArb,
          updated_after: instantArb,
          updated_before: instantArb,
          email: fc.constantFrom(...EMAILS, 'ADA@example.com', 'nobody@example.com'),
          customer_id: fc.constantFrom('1', '999999'),
          source: fc.constantFrom('api', 'marketplace'),
          marketplace: fc.constantFrom('amazon', 'ebay', 'zalando'),
          external_order_id: fc.constantFrom('X-1', 'X-2', 'X-3', 'X-999'),
        },
        { requiredKeys: [] },
      );

      // Each filter present now and then: combinations stay selective but rarely empty.
      return fc
        .tuple(
          filtersArb,
          fc.array(
            fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
            { minLength: 10, maxLength: 10 },
          ),
        )
        .map(([filters, keep]) =>
          Object.fromEntries(Object.entries(filters).filter((_, i) => keep[i])),
        );
    }

    it('cursor walks and pages equal the brute force for random filters, sorts and limits', async () => {
      let nonEmpty = 0;
      let multiPage = 0;
      await fc.assert(
        fc.asyncProperty(
          filterArbitrary(),
          fc.constantFrom(...SORTS),
          fc.integer({ min: 3, max: 60 }),
          fc.constantFrom('app', 'customer', 'customer-me'),
          fc.infiniteStream(fc.tuple(fc.integer({ min: 1, max: 100 }), fc.boolean())),
          fc.nat(),
          async (raw, sort, limit, actor, nextPages, pageSeed) => {
            const customer = customers[limit % 2];
            const filters = { ...raw };
            if (filters.customer_id === '1') filters.customer_id = String(customers[0].id);
            const token = actor === 'app' ? shop.token : customer.token;
            const path = actor === 'customer-me' ? '/v1/customers/me/orders' : '/v1/orders';
            const want = expected(filters, sort, actor === 'app' ? undefined : customer.id);
            if (want.length > 0) nonEmpty++;
            if (want.length > limit) multiPage++;
            const sortParam: Query = sort === '-created_at' && limit % 3 === 0 ? {} : { sort };

            // The walk: the first page in page mode, then cursors with varying limits,
            // sometimes repeating the filters and sort unchanged.
            const seen: number[] = [];
            let body = await listOk(
              token,
              { ...filters, ...sortParam, limit: String(limit) },
              path,
            );
            seen.push(...body.data.map((o) => o.id));
            const pages = nextPages[Symbol.iterator]();
            while (body.meta.has_more) {
              const [nextLimit, repeat] = pages.next().value as [number, boolean];
              const query: Query = { cursor: body.meta.next_cursor!, limit: String(nextLimit) };
              body = await listOk(
                token,
                repeat ? { ...query, ...filters, ...sortParam } : query,
                path,
              );
              expect(Object.keys(body.meta).sort()).toEqual(['has_more', 'limit', 'next_cursor']);
              expect(body.data.length).toBeLessThanOrEqual(nextLimit);
              seen.push(...body.data.map((o) => o.id));
            }
            expect(seen).toEqual(want);
            // Descending walks end with no cursor; ascending ones keep one to poll.
            expect(body.meta.next_cursor === null).toBe(sort.startsWith('-') || want.length === 0);

            // Page mode: any page, with the exact total.
            const pageCount = Math.ceil(want.length / limit);
            const page = (pageSeed % (pageCount + 1)) + 1;
            const paged = await listOk(
              token,
              { ...filters, ...sortParam, limit: String(limit), page: String(page) },
              path,
            );
            expect(paged.data.map((o) => o.id)).toEqual(
              want.slice((page - 1) * limit, page * limit),
            );
            expect(paged.meta).toMatchObject({
              page,
              limit,
              total: want.length,
              total_pages: pageCount,
              has_more: page * limit < want.length,
            });
          },
        ),
        { numRuns: 200 },
      );
      // The random filters did exercise real walks, not only empty answers.
      expect(nonEmpty).toBeGreaterThan(70);
      expect(multiPage).toBeGreaterThan(25);
    }, 60_000);

    it('serves the stored microseconds: ties and sub-millisecond keys never repeat or skip', async () => {
      for (const sort of SORTS) {
        const seen: number[] = [];
        let body = await listOk(shop.token, { sort, limit: '5' });
        seen.push(...body.data.map((o) => o.id));
        while (body.meta.has_more) {
          body = await listOk(shop.token, { cursor: body.meta.next_cursor!, limit: '5' });
          seen.push(...body.data.map((o) => o.id));
        }
        expect(seen).toEqual(expected({}, sort));
      }
    });

    it('a cursor of another tenant or customer never shows foreign orders', async () => {
      const own = new Set(rows.map((r) => r.id));
      const foreign = await listOk(other.token, { limit: '5', sort: 'created_at' });
      expect(foreign.data).toHaveLength(5);
      const borrowed = await listOk(shop.token, {
        cursor: foreign.meta.next_cursor!,
        limit: '100',
      });
      for (const order of borrowed.data) expect(own.has(order.id)).toBe(true);
      const back = await listOk(other.token, { cursor: foreign.meta.next_cursor!, limit: '100' });
      for (const order of back.data) expect(own.has(order.id)).toBe(false);

      const [one, two] = customers;
      const ofOne = await listOk(one.token, { limit: '2', sort: '-updated_at' });
      const taken = await listOk(two.token, { cursor: ofOne.meta.next_cursor!, limit: '100' });
      const twos = new Set(rows.filter((r) => r.customerId === two.id).map((r) => r.id));
      expect(taken.data.length).toBeGreaterThan(0);
      for (const order of taken.data) expect(twos.has(order.id)).toBe(true);
    });

    it('a customer sees only their own orders, whatever customer_id or email they pass', async () => {
      const [one, two] = customers;
      const ones = rows.filter((r) => r.customerId === one.id);
      for (const path of ['/v1/orders', '/v1/customers/me/orders']) {
        const all = await listOk(one.token, { limit: '100' }, path);
        expect(all.meta.total).toBe(ones.length);
        expect(
          await listOk(one.token, { customer_id: String(two.id), limit: '100' }, path),
        ).toMatchObject({ data: [], meta: { total: 0, has_more: false, next_cursor: null } });
        const mine = await listOk(one.token, { customer_id: String(one.id), limit: '100' }, path);
        expect(mine.meta.total).toBe(ones.length);
        const byEmail = await listOk(one.token, { email: 'ada@example.com', limit: '100' }, path);
        expect(byEmail.data.map((o) => o.id).sort((a, b) => a - b)).toEqual(
          ones
            .filter((r) => r.email.toLowerCase() === 'ada@example.com')
            .map((r) => r.id)
            .sort((a, b) => a - b),
        );
      }
    });
  });

  describe('walks over a list that changes between pages', () => {
    async function shopWithOrders(count: number): Promise<{ shop: Shop; orders: ListedOrder[] }> {
      const shop = await newShop();
      const orders: ListedOrder[] = [];
      for (let i = 0; i < count; i++) orders.push(await createOrder(shop));
      return { shop, orders };
    }

    /** Between pages: a new order and two status changes. */
    const churn = (shop: Shop, orders: ListedOrder[]) => async () => {
      orders.push(await createOrder(shop));
      let changed = 0;
      for (const order of orders.toSorted(() => Math.random() - 0.5)) {
        if (changed === 2) break;
        if (await advance(shop, order)) changed++;
      }
    };

    it('-created_at: every order that existed at the start exactly once, none created later', async () => {
      const { shop, orders } = await shopWithOrders(20);
      const atStart = orders.map((o) => o.id);
      const seen: ListedOrder[] = [];
      const cursor = await walkToEnd(
        shop.token,
        { sort: '-created_at', limit: '3' },
        seen,
        churn(shop, orders),
      );
      expect(orders.length).toBeGreaterThan(atStart.length);
      // Orders created meanwhile land ahead of a descending walk: not served.
      expect(seen.map((o) => o.id)).toEqual(atStart.toReversed());
      expect(cursor).toBeNull();
    });

    it('created_at: every order once; those created during the walk after the horizon passes', async () => {
      const { shop, orders } = await shopWithOrders(20);
      await pastHorizon();
      const atStart = orders.map((o) => o.id);
      const seen: ListedOrder[] = [];
      const cursor = await walkToEnd(
        shop.token,
        { sort: 'created_at', limit: '3' },
        seen,
        churn(shop, orders),
      );
      // Those that existed first, in order; the new ones wait for the horizon (a second).
      expect(seen.map((o) => o.id).slice(0, atStart.length)).toEqual(atStart);
      await pastHorizon();
      await walkToEnd(shop.token, { cursor: cursor!, limit: '3' }, seen);
      expect(seen.map((o) => o.id)).toEqual(orders.map((o) => o.id).sort((a, b) => a - b));
    });

    it('updated_at ascending: every order, no version twice, the last version last', async () => {
      const { shop, orders } = await shopWithOrders(20);
      await pastHorizon();
      const seen: ListedOrder[] = [];
      let cursor = await walkToEnd(
        shop.token,
        { sort: 'updated_at', limit: '3' },
        seen,
        churn(shop, orders),
      );
      await pastHorizon();
      cursor = await walkToEnd(shop.token, { cursor: cursor!, limit: '4' }, seen);
      expect(cursor).not.toBeNull();

      const versions = seen.map((o) => `${o.id}@${o.updated_at}`);
      expect(new Set(versions).size).toBe(versions.length);
      const final = await finalState(shop);
      const lastSeen = new Map(seen.map((o) => [o.id, o.updated_at]));
      expect([...lastSeen.keys()].sort((a, b) => a - b)).toEqual(
        [...final.keys()].sort((a, b) => a - b),
      );
      for (const [id, order] of final) expect(lastSeen.get(id)).toBe(order.updated_at);
      // Served in key order: each page continues where the last one ended.
      const keys = seen.map((o) => o.updated_at);
      expect(keys).toEqual(keys.toSorted((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    });
  });

  describe('a late commit', () => {
    it('is not skipped by an ascending walk: the horizon waits for it', async () => {
      const shop = await newShop();
      const early = [await createOrder(shop), await createOrder(shop), await createOrder(shop)];
      await pastHorizon();

      // A transaction that writes an order and changes another, then stays open.
      const ctx: AppContext = {
        kind: 'app',
        tenantId: shop.tenantId,
        appId: shop.client.app.id,
        clientId: shop.client.clientId,
        scopes: new Set(),
        tokenId: 'test',
        credentialsVersion: 1,
      };
      const service = t.app.get(OrdersService);
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let wrote!: () => void;
      const written = new Promise<void>((resolve) => (wrote = resolve));
      const held = t.app.get(Transactions).run(async () => {
        const order = await service.create(ctx, {
          customer: { name: 'Late', email: 'late@example.com' },
          shipping_address: { country: 'TR', city: 'Istanbul', address: 'Moda 1' },
          items: [{ product_id: shop.product, quantity: 1 }],
        });
        const changed = await service.changeStatus(ctx, early[0].id, 'paid');
        wrote();
        await released;
        return { order, changed };
      });
      await written;

      // Others commit after it meanwhile; both walks reach their end.
      const later = [await createOrder(shop), await createOrder(shop)];
      await advance(shop, early[1]);
      const byCreation: ListedOrder[] = [];
      const createdCursor = await walkToEnd(
        shop.token,
        { sort: 'created_at', limit: '2' },
        byCreation,
      );
      const byUpdate: ListedOrder[] = [];
      const updatedCursor = await walkToEnd(
        shop.token,
        { sort: 'updated_at', limit: '2' },
        byUpdate,
      );
      // Nothing at or after the open transaction's start was served: not the later orders,
      // nor early[1]'s change; early[0] in its committed version.
      expect(byCreation.map((o) => o.id)).toEqual(early.map((o) => o.id));
      expect(byUpdate.map((o) => `${o.id}:${o.status}`)).toEqual([
        `${early[0].id}:pending`,
        `${early[2].id}:pending`,
      ]);

      release();
      const { order: late } = await held;
      await pastHorizon();
      await walkToEnd(shop.token, { cursor: createdCursor!, limit: '2' }, byCreation);
      await walkToEnd(shop.token, { cursor: updatedCursor!, limit: '2' }, byUpdate);

      // The late order sits before the later ones by created_at, and still was not skipped.
      expect(byCreation.map((o) => o.id)).toEqual([
        ...early.map((o) => o.id),
        late.id,
        ...later.map((o) => o.id),
      ]);
      const lastVersion = new Map(byUpdate.map((o) => [o.id, o.status]));
      expect(lastVersion.get(early[0].id)).toBe('paid');
      expect(lastVersion.get(early[1].id)).toBe('paid');
      expect(lastVersion.get(late.id)).toBe('pending');
      expect(lastVersion.size).toBe(6);
    });
  });

  describe('validation', () => {
    let shop: Shop;
    let cursor: string;
    beforeAll(async () => {
      shop = await newShop();
      for (let i = 0; i < 3; i++) await createOrder(shop);
      const body = await listOk(shop.token, {
        limit: '1',
        status: 'pending,paid',
        email: 'Ada@Example.com',
        created_after: '2000-01-01T00:00:00Z',
        sort: '-updated_at',
      });
      cursor = body.meta.next_cursor!;
    });

    const expect400 = async (query: Query, field: string) => {
      const res = await list(shop.token, query);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      return res;
    };

    it.each([
      ['status', 'bogus'],
      ['status', 'paid,bogus'],
      ['status', 'paid,,shipped'],
      ['status', 'paid,'],
      ['status', ''],
      ['created_after', '2026-01-01'],
      ['created_after', '2026-01-01T00:00:00'],
      ['created_before', '2026-01-01T00:00:00.1234567Z'],
      ['updated_after', '2026-02-30T00:00:00Z'],
      ['updated_before', '2026-01-01 00:00:00Z'],
      ['updated_before', '1767225600'],
      ['email', 'not-an-email'],
      ['customer_id', '0'],
      ['customer_id', 'abc'],
      ['customer_id', '1.5'],
      ['customer_id', '-1'],
      ['source', 'web'],
      ['marketplace', 'Amazon'],
      ['marketplace', 'a'.repeat(51)],
      ['external_order_id', ''],
      ['external_order_id', 'x'.repeat(101)],
      ['sort', 'id'],
      ['sort', 'created'],
      ['sort', '+created_at'],
      ['limit', '0'],
      ['limit', '101'],
      ['page', '0'],
      ['cursor', 'not-a-cursor'],
      ['unknown', 'x'],
    ])('%s=%j → 400 validation_failed naming it', async (field, value) => {
      await expect400({ [field]: value }, field);
    });

    it('a repeated parameter is refused unless it is a list', async () => {
      const res = await t.http
        .get('/v1/orders?email=a@example.com&email=b@example.com')
        .set('authorization', `Bearer ${shop.token}`);
      expect(res.status).toBe(400);
      expect(res.body.details[0].field).toBe('email');
    });

    it('cursor with page → 400', async () => {
      await expect400({ cursor, page: '1' }, 'page');
      await expect400({ cursor, page: '2' }, 'page');
    });

    it('a cursor with a changed sort or filter → 400 naming it; the same values pass', async () => {
      await expect400({ cursor, sort: '-created_at' }, 'sort');
      await expect400({ cursor, status: 'pending' }, 'status');
      await expect400({ cursor, email: 'eve@example.com' }, 'email');
      await expect400({ cursor, created_after: '2000-01-01T00:00:00.000001Z' }, 'created_after');
      await expect400({ cursor, source: 'api' }, 'source');
      const both = await expect400({ cursor, sort: 'updated_at', customer_id: '3' }, 'sort');
      expect(both.body.details.map((d: { field: string }) => d.field)).toEqual([
        'sort',
        'customer_id',
      ]);
      // Omitted, or the same filter written another way: the walk goes on.
      for (const same of <Query[]>[
        {},
        { sort: '-updated_at' },
        { status: 'paid,pending', email: 'ada@EXAMPLE.com' },
        { created_after: '2000-01-01T02:00:00.000+02:00' },
      ]) {
        const res = await list(shop.token, { cursor, limit: '1', ...same });
        expect(res.status).toBe(200);
        expect(res.body.data).toHaveLength(1);
      }
    });

    it('a tampered, truncated or forged cursor → 400, never 500', async () => {
      const forged = (document: unknown) =>
        Buffer.from(JSON.stringify(document)).toString('base64url');
      const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as Record<
        string,
        unknown
      >;
      for (const bad of [
        cursor.slice(0, -2),
        `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`,
        `${cursor}==`,
        forged({ ...decoded, k: 'yesterday' }),
        forged({ ...decoded, i: 'id' }),
        forged({ ...decoded, f: { customer_id: "1' OR '1'='1" } }),
        forged({ ...decoded, f: { created_after: '2026-13-01T00:00:00.000000Z' } }),
        forged({ ...decoded, s: 'total' }),
        forged({ ...decoded, tenant_id: 1 }),
        forged([1, 2, 3]),
        'e30',
        '%00',
      ]) {
        const res = await list(shop.token, { cursor: bad });
        expect(res.status).toBe(400);
        expect(res.body.details).toEqual([
          { field: 'cursor', message: 'must be a meta.next_cursor from this list' },
        ]);
      }
    });
  });
});
