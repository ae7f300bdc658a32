import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rangeOf, type OrderListSpec, type PageWindow } from '../src/orders/order-list-query.js';
import { orderCountSql, orderListSql, orderMatchesUpToSql } from '../src/orders/order-list.sql.js';
import type { OrderListFilters, OrderListSort } from '../src/orders/order-list-filters.js';
import { ORDER_STATUSES, type OrderStatus } from '../src/orders/order-status.js';
import type { OrderScope } from '../src/orders/order-scope.js';
import { newShop, type Shop } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { prng } from './support/prng.js';

/**
 * The plans of order-list.sql.ts for a list sorted by one timestamp and filtered by a range
 * of the other (range-first vs a walk in sort order), and the counters-less-complement total,
 * give exactly what the plain plans give: the same ids in the same order, the same total.
 */

const SORTS: OrderListSort[] = ['-created_at', 'created_at', '-updated_at', 'updated_at'];
const HOUR = 3_600_000;

interface Row {
  id: number;
  status: OrderStatus;
  created: number;
  updated: number;
}

const text = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}.000000Z`;

describe('order list plans', () => {
  let t: TestApp;
  let shop: Shop;
  let scope: OrderScope;
  const rows: Row[] = [];
  const base = Date.UTC(2025, 0, 1);

  beforeAll(async () => {
    t = await createTestApp({ API_RATE_LIMIT_PER_TOKEN: '1000000' });
    shop = await newShop(t);
    scope = { kind: 'tenant' };
    const random = prng(17_650_050);
    // Hour-aligned instants: many orders share one, so ties are broken by id.
    const drafts = Array.from({ length: 240 }, () => {
      const created = base + Math.floor(random() * 200) * HOUR;
      const updated = created + (random() < 0.3 ? 0 : Math.floor(random() * 120) * HOUR);
      return {
        status: ORDER_STATUSES[Math.floor(random() * ORDER_STATUSES.length)],
        created,
        updated,
      };
    });
    const inserted: Array<{ id: number; n: string }> = await t.dataSource.query(
      `INSERT INTO orders (tenant_id, status, currency, total_minor, customer_name, customer_email,
         shipping_country, shipping_city, shipping_address, created_at, updated_at)
       SELECT $1, s.status, 'USD', 100, s.n::text, 'ada@example.com', 'TR', 'Istanbul',
         'Street 1', s.created::timestamptz, s.updated::timestamptz
       FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS s(status, created, updated, n)
       RETURNING id, customer_name AS n`,
      [
        shop.tenantId,
        drafts.map((d) => d.status),
        drafts.map((d) => text(d.created)),
        drafts.map((d) => text(d.updated)),
      ],
    );
    for (const { id, n } of inserted) rows.push({ id, ...drafts[Number(n) - 1] });
    // Another tenant's look-alikes are in no answer.
    const other = await newShop(t);
    await t.dataSource.query(
      `INSERT INTO orders (tenant_id, status, currency, total_minor, customer_name, customer_email,
         shipping_country, shipping_city, shipping_address, created_at, updated_at)
       SELECT $1, 'paid', 'USD', 100, 'Other', 'ada@example.com', 'TR', 'Istanbul', 'Street 1',
         $2::timestamptz + g * interval '1 hour', $2::timestamptz + g * interval '2 hours'
       FROM generate_series(1, 50) g`,
      [other.tenantId, text(base)],
    );
  });
  afterAll(() => t.close());

  async function ids(spec: OrderListSpec, window: PageWindow): Promise<number[]> {
    const { text: sql, params } = orderListSql(scope, spec, 'o.id', window);
    const found: Array<{ id: number }> = await t.dataSource.query(sql, [shop.tenantId, ...params]);
    return found.map((r) => r.id);
  }

  async function total(spec: OrderListSpec, complementMax?: number): Promise<number> {
    const { text: sql, params } = orderCountSql(scope, spec, complementMax);
    const found: Array<{ total: number }> = await t.dataSource.query(sql, [
      shop.tenantId,
      ...params,
    ]);
    return found[0].total;
  }

  /** The brute force: the rows the spec selects, in its order. */
  function expected(spec: OrderListSpec): Row[] {
    const f = spec.filters;
    const key = spec.sort.endsWith('created_at') ? 'created' : 'updated';
    const sign = spec.sort.startsWith('-') ? -1 : 1;
    const at = (v: string | undefined) => (v === undefined ? undefined : Date.parse(v));
    const within = (x: number, from?: string, to?: string) =>
      (at(from) === undefined || x >= at(from)!) && (at(to) === undefined || x < at(to)!);
    return rows
      .filter(
        (r) =>
          (f.status === undefined || f.status.includes(r.status)) &&
          within(r.created, f.created_after, f.created_before) &&
          within(r.updated, f.updated_after, f.updated_before) &&
          (spec.horizon === undefined || r[key] < Date.parse(spec.horizon)),
      )
      .toSorted((a, b) => sign * (a[key] - b[key] || a.id - b.id));
  }

  const at = (hours: number) => text(base + hours * HOUR);
  const RANGES: OrderListFilters[] = [
    { created_before: at(-1) },
    { created_before: at(30) },
    { created_after: at(150) },
    { created_after: at(-1) },
    { updated_after: at(100) },
    { updated_before: at(60) },
    { updated_after: at(-1) },
    { updated_before: at(10_000) },
    { created_after: at(40), created_before: at(120) },
    { created_after: at(40), updated_before: at(200) },
  ];
  const STATUS_SETS: Array<OrderStatus[] | undefined> = [undefined, ['paid'], ['paid', 'shipped']];

  function* specs(): Generator<OrderListSpec> {
    for (const sort of SORTS) {
      for (const range of RANGES) {
        for (const status of STATUS_SETS) {
          const filters = status ? { ...range, status } : range;
          yield { sort, filters };
          if (!sort.startsWith('-')) yield { sort, filters, horizon: at(180) };
        }
      }
    }
  }

  it('reads range-first exactly what the walk in sort order reads, from either end', async () => {
    let ranged = 0;
    const mismatches: unknown[] = [];
    const check = (what: object, got: number[], want: number[]) => {
      if (got.join() !== want.join()) mismatches.push({ ...what, got, want });
    };
    for (const spec of specs()) {
      if (rangeOf(scope, spec) !== undefined) ranged++;
      const all = expected(spec).map((r) => r.id);
      for (const window of [
        { limit: 7, offset: 0 },
        { limit: 7, offset: 19 },
        { limit: 7, offset: 3, reverse: true },
        { limit: 100, offset: 0 },
      ] satisfies PageWindow[]) {
        const want = window.reverse
          ? all.toReversed().slice(window.offset, window.offset + window.limit)
          : all.slice(window.offset, window.offset + window.limit);
        check({ spec, window }, await ids(spec, window), want);
        check(
          { spec, window, rangeFirst: true },
          await ids(spec, { ...window, rangeFirst: true }),
          want,
        );
      }
      if (all.length <= 4) continue;
      // A cursor position in the middle of the list.
      const middle = expected(spec)[Math.floor(all.length / 2)];
      const key = spec.sort.endsWith('created_at') ? middle.created : middle.updated;
      const after = { key: text(key), id: middle.id };
      const rest = all.slice(Math.floor(all.length / 2) + 1);
      const window = { limit: 10, offset: 0 };
      check({ spec, after }, await ids({ ...spec, after }, window), rest.slice(0, 10));
      check(
        { spec, after, rangeFirst: true },
        await ids({ ...spec, after }, { ...window, rangeFirst: true }),
        rest.slice(0, 10),
      );
      if (rangeOf(scope, spec) === undefined) continue;
      const { text: sql, params } = orderMatchesUpToSql(scope, { ...spec, after }, 5);
      const [{ matching }] = await t.dataSource.query<Array<{ matching: number }>>(sql, [
        shop.tenantId,
        ...params,
      ]);
      check({ spec, after, upTo: 5 }, [matching], [Math.min(rest.length, 5)]);
    }
    expect(mismatches).toEqual([]);
    expect(ranged).toBeGreaterThan(50);
  });

  it('counts exactly, from the counters less the outside or by a scan', async () => {
    const counted: unknown[] = [];
    const want: unknown[] = [];
    for (const spec of specs()) {
      // The complement read (outside ≤ the cap), and the scan it falls back to (cap 1).
      counted.push({ spec, totals: [await total(spec), await total(spec, 1)] });
      const n = expected(spec).length;
      want.push({ spec, totals: [n, n] });
    }
    expect(counted).toEqual(want);
  });

  it('answers the attack combinations over HTTP as the brute force orders them', async () => {
    const get = async (query: Record<string, string>) => {
      const res = await t.http
        .get('/v1/orders')
        .query(query)
        .set('authorization', `Bearer ${shop.token}`);
      expect({ status: res.status, query }).toEqual({ status: 200, query });
      return res.body as {
        data: Array<{ id: number }>;
        meta: {
          total?: number;
          total_pages?: number;
          has_more: boolean;
          next_cursor: string | null;
        };
      };
    };
    const cases: Array<{ query: Record<string, string>; spec: OrderListSpec }> = [
      {
        query: { limit: '10', sort: '-updated_at', created_before: at(30) },
        spec: { sort: '-updated_at', filters: { created_before: at(30) } },
      },
      {
        query: { limit: '10', updated_after: '2000-01-01T00:00:00Z' },
        spec: { sort: '-created_at', filters: { updated_after: at(-24 * 365 * 25) } },
      },
      {
        query: { limit: '10', sort: '-updated_at', created_after: at(60), status: 'paid,shipped' },
        spec: {
          sort: '-updated_at',
          filters: { created_after: at(60), status: ['paid', 'shipped'] },
        },
      },
    ];
    for (const { query, spec } of cases) {
      const all = expected(spec).map((r) => r.id);
      const pages = Math.ceil(all.length / 10);
      for (const page of [1, 2, pages - 1, pages, pages + 1]) {
        if (page < 1) continue;
        const body = await get({ ...query, page: String(page) });
        expect(body.data.map((o) => o.id)).toEqual(all.slice((page - 1) * 10, page * 10));
        expect(body.meta.total).toBe(all.length);
        expect(body.meta.total_pages).toBe(pages);
      }
      // A cursor walk serves every order once, in order.
      const walked: number[] = [];
      let body = await get(query);
      walked.push(...body.data.map((o) => o.id));
      while (body.meta.has_more) {
        body = await get({ limit: '10', cursor: body.meta.next_cursor! });
        walked.push(...body.data.map((o) => o.id));
      }
      expect(walked).toEqual(all);
    }
  });
});
