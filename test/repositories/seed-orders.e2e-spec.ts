import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeedOrdersRepository } from '../../src/orders/seed-orders.repository.js';
import { within } from '../support/eventually.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';
import { addProduct, insertCustomer } from '../support/tenant-rows.js';

describe('the order seed’s statements, two tenants', () => {
  let r: RepositoryDatabase;
  const seeds = new SeedOrdersRepository();
  let productA: number;

  beforeAll(async () => {
    r = await repositoryDatabase();
    productA = await addProduct(r.inspect, r.tenantA, 'MUG', { priceMinor: 250 });
    await addProduct(r.inspect, r.tenantA, 'OLD', { active: false });
    await addProduct(r.inspect, r.tenantB, 'MUG');
    await addProduct(r.inspect, r.tenantB, 'CUP');
    await insertCustomer(r.inspect, r.tenantA, 'ada@example.com', { verified: true });
    await insertCustomer(r.inspect, r.tenantA, 'unverified@example.com');
    await insertCustomer(r.inspect, r.tenantB, 'bob@example.com', { verified: true });
    await insertCustomer(r.inspect, r.tenantB, 'seed-customer-1@example.com', { verified: true });
  });
  afterAll(() => r.close());

  const tenantA = () => r.transactions.db.tenant(r.tenantA);
  const tenantB = () => r.transactions.db.tenant(r.tenantB);
  const countsOf = async (tenantId: number) => {
    const [row] = await r.inspect.query<Array<{ orders: number; customers: number }>>(
      `SELECT (SELECT count(*)::int FROM orders WHERE tenant_id = $1) AS orders,
         (SELECT count(*)::int FROM customers WHERE tenant_id = $1) AS customers`,
      [tenantId],
    );
    return row;
  };

  it('catalog: the tenant exists, with its own active products counted', async () => {
    expect(await seeds.catalog(tenantA())).toEqual({ tenant: true, products: 1 });
    expect(await seeds.catalog(r.transactions.db.tenant(999_999))).toEqual({
      tenant: false,
      products: 0,
    });
  });

  it('verifiedCustomers and addSeedCustomers: the tenant’s customers only', async () => {
    const bBefore = await countsOf(r.tenantB);
    const db = tenantA();
    expect((await seeds.verifiedCustomers(db, 5)).map((c) => c.email)).toEqual(['ada@example.com']);
    // seed-customer-1 exists in tenant B only: tenant A gets its own.
    await seeds.addSeedCustomers(db, 2, 'hash', 3);
    expect((await seeds.verifiedCustomers(db, 5)).map((c) => c.email)).toEqual([
      'ada@example.com',
      'seed-customer-1@example.com',
      'seed-customer-2@example.com',
    ]);
    expect(await countsOf(r.tenantB)).toEqual(bBefore);
  });

  it('writeBatch: orders of the tenant, from its catalog and its customers', async () => {
    const bBefore = await countsOf(r.tenantB);
    const db = tenantA();
    const customers = await seeds.verifiedCustomers(db, 5);
    const written = await r.transactions.run((unit) =>
      seeds.writeBatch(unit.tenant(r.tenantA), {
        count: 50,
        days: 30,
        customers,
        linkedShare: 0.5,
        offset: 0,
        total: 50,
      }),
    );
    expect(written).toBe(50);
    const [seeded] = await r.inspect.query<
      Array<{ orders: number; currencies: string[]; products: number[]; foreign: number }>
    >(
      `SELECT count(DISTINCT o.id)::int AS orders, array_agg(DISTINCT o.currency) AS currencies,
         array_agg(DISTINCT i.product_id) AS products,
         count(*) FILTER (WHERE o.customer_id IS NOT NULL AND o.customer_id <> ALL($2::bigint[]))::int AS foreign
       FROM orders o JOIN order_items i ON i.tenant_id = o.tenant_id AND i.order_id = o.id
       WHERE o.tenant_id = $1`,
      [r.tenantA, customers.map((c) => c.id)],
    );
    expect(seeded).toEqual({ orders: 50, currencies: ['EUR'], products: [productA], foreign: 0 });
    // Each status with the state the API's own changes leave with it.
    const disagreeing = await r.inspect.query(
      `SELECT o.id, o.status FROM orders o
       WHERE o.tenant_id = $1 AND (
         (o.fulfillment_status = 'fulfilled') <> (o.status = 'shipped')
         OR (o.refunded_minor = o.total_minor AND o.total_minor > 0) <> (o.status = 'refunded')
         OR (o.cancel_reason IS NOT NULL) <> (o.status = 'cancelled')
         OR EXISTS (SELECT 1 FROM order_items i WHERE i.tenant_id = o.tenant_id AND i.order_id = o.id
           AND (i.fulfilled_quantity <> CASE WHEN o.status = 'shipped' THEN i.quantity ELSE 0 END
             OR i.refunded_quantity <> CASE WHEN o.status = 'refunded' THEN i.quantity ELSE 0 END)))`,
      [r.tenantA],
    );
    expect(disagreeing).toEqual([]);
    expect(await countsOf(r.tenantB)).toEqual(bBefore);
  });

  it('writeBatch: the order counters stay exact, whether or not the role may skip the triggers', async () => {
    // Both sides of the counters: base rows plus deltas, and count(*) of the orders.
    const counters = async (sql: string) =>
      Object.fromEntries(
        (
          await r.inspect.query<Array<{ key: string; n: number }>>(
            `SELECT customer_id || ':' || status AS key, sum(n)::int AS n FROM (${sql}) c
             GROUP BY customer_id, status HAVING sum(n) <> 0`,
            [r.tenantB],
          )
        ).map((row) => [row.key, row.n]),
      );
    const kept = () =>
      counters(`SELECT customer_id, status, count AS n FROM order_counts WHERE tenant_id = $1
        UNION ALL SELECT customer_id, status, delta FROM order_count_deltas WHERE tenant_id = $1`);
    const counted = () =>
      counters(`SELECT 0::bigint AS customer_id, status, 1 AS n FROM orders WHERE tenant_id = $1
        UNION ALL SELECT customer_id, status, 1 FROM orders
        WHERE tenant_id = $1 AND customer_id IS NOT NULL`);
    // A role without the right to set session_replication_role: the triggers run.
    await r.inspect.query(`DROP ROLE IF EXISTS seed_writer`);
    await r.inspect.query(`CREATE ROLE seed_writer NOLOGIN`);
    await r.inspect.query(
      `GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO seed_writer;
       GRANT USAGE, UPDATE ON ALL SEQUENCES IN SCHEMA public TO seed_writer`,
    );
    const customers = await seeds.verifiedCustomers(tenantB(), 5);
    const batch = { count: 300, days: 30, customers, linkedShare: 0.5, offset: 0, total: 600 };
    for (const role of [undefined, 'seed_writer']) {
      const written = await r.transactions.run(async (unit) => {
        const db = unit.tenant(r.tenantB);
        if (role) await db.rows(`SELECT set_config('role', $2, true) WHERE $1::bigint > 0`, [role]);
        return seeds.writeBatch(db, { ...batch, offset: role ? 300 : 0 });
      });
      expect(written).toBe(300);
    }
    const byCount = await counted();
    expect(Object.values(byCount).length).toBeGreaterThan(6); // tenant and customers, by status
    expect(await kept()).toEqual(byCount);
  });

  it('refreshStatistics: VACUUM (ANALYZE) of the seeded tables on the cross-tenant path', async () => {
    // Manual runs only: autovacuum writes last_autovacuum and last_autoanalyze instead.
    const maintained = () =>
      r.inspect.query<Array<{ relname: string; vacuumed: boolean; analyzed: boolean }>>(
        `SELECT relname, last_vacuum IS NOT NULL AS vacuumed, last_analyze IS NOT NULL AS analyzed
         FROM pg_stat_user_tables WHERE relname IN ('orders', 'order_items', 'customers')
         ORDER BY relname`,
      );
    expect((await maintained()).some((t) => t.vacuumed || t.analyzed)).toBe(false);
    await seeds.refreshStatistics(r.transactions.db.crossTenant('seed-table-maintenance'), true);
    // The statistics reach other sessions asynchronously.
    await within(10_000, async () => (await maintained()).every((t) => t.analyzed));
    expect(await maintained()).toEqual([
      { relname: 'customers', vacuumed: false, analyzed: true },
      { relname: 'order_items', vacuumed: true, analyzed: true },
      { relname: 'orders', vacuumed: true, analyzed: true },
    ]);
  });
});
