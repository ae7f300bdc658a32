import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderListSpec } from '../../src/orders/order-list-query.js';
import { OrderListRepository } from '../../src/orders/order-list.repository.js';
import { OrderCountsRepository } from '../../src/orders/order-counts.repository.js';
import { WHOLE_TENANT_SCOPE, type OrderScope } from '../../src/orders/order-scope.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';
import { addOrder, insertCustomer } from '../support/tenant-rows.js';

describe('the order list and the order counters, two tenants', () => {
  let r: RepositoryDatabase;
  const list = new OrderListRepository();
  const counts = new OrderCountsRepository();
  let customerA: number;
  let customerB: number;
  /** Tenant A's orders, newest first; tenant B's are interleaved in time with them. */
  let ordersA: number[];
  const at = (day: number) => `2025-01-${String(day).padStart(2, '0')}T12:00:00Z`;

  beforeAll(async () => {
    r = await repositoryDatabase();
    customerA = await insertCustomer(r.inspect, r.tenantA, 'ada@example.com', { verified: true });
    customerB = await insertCustomer(r.inspect, r.tenantB, 'ada@example.com', { verified: true });
    const statuses = ['pending', 'paid', 'shipped', 'paid'];
    const created: number[] = [];
    for (const [i, status] of statuses.entries()) {
      created.push(
        await addOrder(r.inspect, r.tenantA, {
          status,
          createdAt: at(2 * i + 1),
          updatedAt: at(2 * i + 10),
          customerId: i < 2 ? customerA : null,
        }),
      );
      if (i < 3) {
        await addOrder(r.inspect, r.tenantB, {
          status,
          createdAt: at(2 * i + 2),
          updatedAt: at(2 * i + 11),
          customerId: customerB,
        });
      }
    }
    ordersA = created.toReversed();
  });
  afterAll(() => r.close());

  const spec = (s: Partial<OrderListSpec> = {}): OrderListSpec => ({
    sort: '-created_at',
    filters: {},
    ...s,
  });
  const ids = (rows: Array<{ id: number }>) => rows.map((o) => o.id);
  const tenant = () => r.transactions.db.tenant(r.tenantA);
  const customer: () => OrderScope = () => ({ kind: 'customer', customerId: customerA });

  it('list: a page of the tenant’s orders only, with their lines and the total', async () => {
    const page = await list.list(
      tenant(),
      WHOLE_TENANT_SCOPE,
      spec(),
      { limit: 10, offset: 0 },
      true,
    );
    expect(ids(page)).toEqual(ordersA);
    expect(page.map((o) => o.total)).toEqual([4, 4, 4, 4]);
    expect(page[0].items).toHaveLength(1);
    const paid = await list.list(
      tenant(),
      WHOLE_TENANT_SCOPE,
      spec({ filters: { status: ['paid', 'shipped'] } }),
      { limit: 10, offset: 0 },
    );
    expect(ids(paid)).toEqual(ordersA.slice(0, 3));
    const reversed = await list.list(tenant(), WHOLE_TENANT_SCOPE, spec(), {
      limit: 2,
      offset: 0,
      reverse: true,
    });
    expect(ids(reversed)).toEqual(ordersA.toReversed().slice(0, 2));
    // Sorted by one timestamp, filtered by a range of the other: the range-first read.
    const ranged = await list.list(
      tenant(),
      WHOLE_TENANT_SCOPE,
      spec({ sort: '-updated_at', filters: { created_after: at(2) } }),
      { limit: 10, offset: 0, rangeFirst: true },
    );
    expect(ids(ranged)).toEqual(ordersA.slice(0, 3));
  });

  it('list: a customer’s own orders, never those of the other tenant’s customer', async () => {
    const own = await list.list(tenant(), customer(), spec(), { limit: 10, offset: 0 }, true);
    expect(ids(own)).toEqual(ordersA.slice(2));
    expect(own.map((o) => o.total)).toEqual([2, 2]);
    const foreign = await list.list(tenant(), { kind: 'customer', customerId: customerB }, spec(), {
      limit: 10,
      offset: 0,
    });
    expect(foreign).toEqual([]);
  });

  it('count and countUpTo: the tenant’s orders only, from the counters or counted', async () => {
    const db = tenant();
    expect(await list.count(db, WHOLE_TENANT_SCOPE, spec())).toBe(4);
    expect(await list.count(db, WHOLE_TENANT_SCOPE, spec({ filters: { status: ['paid'] } }))).toBe(
      2,
    );
    expect(await list.count(db, customer(), spec())).toBe(2);
    expect(
      await list.count(db, WHOLE_TENANT_SCOPE, spec({ filters: { customer_id: customerB } })),
    ).toBe(0);
    // The counters less the orders outside a one-bound range, and a scan of several filters.
    expect(
      await list.count(db, WHOLE_TENANT_SCOPE, spec({ filters: { created_after: at(2) } })),
    ).toBe(3);
    expect(
      await list.count(
        db,
        WHOLE_TENANT_SCOPE,
        spec({ filters: { created_after: at(2), email: 'buyer@example.com' } }),
      ),
    ).toBe(3);
    // Ascending: the counters less the orders at or past the horizon.
    expect(
      await list.count(db, WHOLE_TENANT_SCOPE, spec({ sort: 'created_at', horizon: at(4) })),
    ).toBe(2);
    const ranged = spec({ sort: '-updated_at', filters: { created_after: at(2) } });
    expect(await list.countUpTo(db, WHOLE_TENANT_SCOPE, ranged, 10)).toBe(3);
    expect(await list.countUpTo(db, WHOLE_TENANT_SCOPE, ranged, 2)).toBe(2);
  });

  it('horizon: an instant of the server, as canonical UTC text', async () => {
    const horizon = await list.horizon(r.transactions.db.shared());
    expect(horizon).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(Date.parse(horizon)).toBeLessThan(Date.now());
  });

  it('compact: folds the pending deltas of both tenants, and every total stays the same', async () => {
    const pending = async () => {
      const rows = await r.inspect.query<Array<{ tenant_id: number; n: number }>>(
        `SELECT tenant_id, count(*)::int AS n FROM order_count_deltas GROUP BY tenant_id ORDER BY 1`,
      );
      return rows;
    };
    const before = await pending();
    expect(before.map((p) => p.tenant_id)).toEqual([r.tenantA, r.tenantB]);
    const total = before.reduce((sum, p) => sum + p.n, 0);
    const folded = await r.transactions.run(async (db) => {
      expect(await counts.lockCompaction(db.shared(), false)).toBe(true);
      return counts.compact(db.crossTenant('order-counts-compaction'), 1000);
    });
    expect(folded).toBe(total);
    expect(await pending()).toEqual([]);
    const folds = await r.inspect.query<Array<{ tenant_id: number; count: number }>>(
      `SELECT tenant_id, sum(count)::int AS count FROM order_counts WHERE customer_id = 0
       GROUP BY tenant_id ORDER BY 1`,
    );
    expect(folds).toEqual([
      { tenant_id: r.tenantA, count: 4 },
      { tenant_id: r.tenantB, count: 3 },
    ]);
    expect(await list.count(tenant(), WHOLE_TENANT_SCOPE, spec())).toBe(4);
    expect(await list.count(tenant(), customer(), spec())).toBe(2);
    const tenantB = r.transactions.db.tenant(r.tenantB);
    expect(await list.count(tenantB, WHOLE_TENANT_SCOPE, spec())).toBe(3);
  });

  it('compact: a batch folds at most its size', async () => {
    await addOrder(r.inspect, r.tenantA);
    await addOrder(r.inspect, r.tenantB);
    const crossTenant = () => r.transactions.db.crossTenant('order-counts-compaction');
    expect(await counts.compact(crossTenant(), 1)).toBe(1);
    expect(await counts.compact(crossTenant(), 10)).toBeGreaterThanOrEqual(1);
    expect(await counts.compact(crossTenant(), 10)).toBe(0);
    expect(await list.count(tenant(), WHOLE_TENANT_SCOPE, spec())).toBe(5);
  });

  it('lockCompaction: one holder at a time', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const holder = r.transactions.run(async (db) => {
      await counts.lockCompaction(db.shared(), false);
      locked();
      await released;
    });
    await holding;
    // Units of work of their own: the holder's is open in its async context only.
    const other = await r.transactions.run((db) => counts.lockCompaction(db.shared(), false));
    expect(other).toBe(false);
    const waiting = r.transactions.run((db) => counts.lockCompaction(db.shared(), true));
    release();
    await holder;
    expect(await waiting).toBe(true);
  });
});
