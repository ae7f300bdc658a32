import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderCountsCompactor } from '../src/orders/order-counts-compactor.service.js';
import { ORDER_STATUSES } from '../src/orders/order-status.js';
import { within } from './support/eventually.js';
import { newShop, orderBodyFor, placeOrder, type Shop } from './support/factories.js';
import { ensureBuilt, processBudget, runCli, runCliJson } from './support/processes.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * Issue 13: `meta.total` comes from counters that every write moves in its own transaction.
 * Under a few hundred concurrent writes of every kind, each counter equals a `count(*)`,
 * before and after the compactor folds the deltas; the totals the API reports equal them.
 */
// Two tests run the CLI (the first five times at once).
describe('order counters', { timeout: processBudget(5) }, () => {
  let t: TestApp;
  let shop: Shop;

  beforeAll(async () => {
    t = await createTestApp({ API_RATE_LIMIT_PER_TOKEN: '100000', WORKER_CONCURRENCY: '2' });
    shop = await newShop(t);
  });
  afterAll(() => t.close());

  const auth = (token = shop.token) => ({ authorization: `Bearer ${token}` });

  /** Every counter of the tenant as `customer:status` → n (zeros left out). */
  async function counters(tenantId: number): Promise<Record<string, number>> {
    const rows: Array<{ key: string; n: number }> = await t.dataSource.query(
      `SELECT customer_id || ':' || status AS key, sum(n)::int AS n FROM (
         SELECT customer_id, status, count AS n FROM order_counts WHERE tenant_id = $1
         UNION ALL
         SELECT customer_id, status, delta FROM order_count_deltas WHERE tenant_id = $1) c
       GROUP BY customer_id, status HAVING sum(n) <> 0`,
      [tenantId],
    );
    return Object.fromEntries(rows.map((r) => [r.key, r.n]));
  }

  /** The same, counted from the orders themselves. */
  async function counted(tenantId: number): Promise<Record<string, number>> {
    const rows: Array<{ key: string; n: number }> = await t.dataSource.query(
      `SELECT '0:' || status AS key, count(*)::int AS n FROM orders WHERE tenant_id = $1 GROUP BY status
       UNION ALL
       SELECT customer_id || ':' || status, count(*)::int FROM orders
       WHERE tenant_id = $1 AND customer_id IS NOT NULL GROUP BY customer_id, status`,
      [tenantId],
    );
    return Object.fromEntries(rows.map((r) => [r.key, r.n]));
  }

  async function verifiedCustomer(email: string): Promise<{ id: number; token: string }> {
    const password = 'a long enough passphrase 7';
    const registered = await t.http
      .post('/v1/customers/register')
      .set(auth())
      .send({ name: 'Counted', email, password });
    expect(registered.status).toBe(201);
    const ticket = await t.http
      .post('/v1/customers/tickets')
      .set(auth())
      .send({ type: 'email_verification', email });
    expect(ticket.status).toBe(201);
    const verified = await t.http
      .post('/v1/customers/verify-email')
      .set(auth())
      .send({ token: (ticket.body as { token: string }).token });
    expect(verified.status).toBe(200);
    const login = await t.http.post('/v1/customers/login').set(auth()).send({ email, password });
    expect(login.status).toBe(200);
    return {
      id: (registered.body as { id: number }).id,
      token: (login.body as { token: string }).token,
    };
  }

  it('equal count(*) after concurrent creates, imports, status changes and a verify-email link', async () => {
    const ada = await verifiedCustomer('count-ada@example.com');
    const bob = await verifiedCustomer('count-bob@example.com');
    // Guest orders of an address whose owner registers and verifies during the writes.
    for (let i = 0; i < 5; i++) await placeOrder(t, shop, 'late@example.com');
    const earlier = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        placeOrder(
          t,
          shop,
          ['count-ada@example.com', 'count-bob@example.com', 'guest@example.com'][i % 3],
        ),
      ),
    );
    const emails = [
      'count-ada@example.com',
      'count-bob@example.com',
      'guest@example.com',
      'late@example.com',
    ];
    const create = (i: number) =>
      t.http
        .post('/v1/orders')
        .set(auth())
        .send(orderBodyFor(shop, emails[i % emails.length]));
    const importOne = (i: number) =>
      t.http
        .post('/v1/marketplace/orders/import')
        .set(auth())
        .send({
          marketplace: 'counted',
          external_order_id: `C-${i}`,
          customer: { name: 'Imported', email: emails[i % emails.length] },
          shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
          items: [{ sku: 'X-1', name: 'Thing', quantity: 1, unit_price: 5, total: 5 }],
        });
    const next = ['paid', 'cancelled', 'preparing', 'refunded', 'shipped'];
    const change = (i: number) =>
      t.http
        .post(`/v1/orders/${earlier[i % earlier.length].id}/status`)
        .set(auth())
        .send({ status: next[i % next.length] });
    const late = (async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return verifiedCustomer('late@example.com');
    })();

    const answers = await Promise.all([
      ...Array.from({ length: 150 }, (_, i) => create(i)),
      ...Array.from({ length: 60 }, (_, i) => importOne(i)),
      ...Array.from({ length: 120 }, (_, i) => change(i)),
    ]);
    const lateCustomer = await late;
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((s) => s === 201)).toHaveLength(150);
    expect(statuses.filter((s) => s === 202)).toHaveLength(60);
    // Status changes race one another: some transitions no longer apply (409).
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);

    await within(15_000, async () => {
      const [{ n }]: Array<{ n: number }> = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM orders WHERE tenant_id = $1 AND source = 'marketplace'`,
        [shop.tenantId],
      );
      return n === 60;
    });

    const truth = await counted(shop.tenantId);
    expect(await counters(shop.tenantId)).toEqual(truth);
    expect(truth[`0:pending`]).toBeGreaterThan(0);
    expect(Object.keys(truth).some((k) => k.startsWith(`${lateCustomer.id}:`))).toBe(true);
    // The background compactor may be folding right now: wait for it, then fold the rest.
    await t.app.get(OrderCountsCompactor).compactAll({ waitForLock: true });
    const [{ pending }]: Array<{ pending: number }> = await t.dataSource.query(
      `SELECT count(*)::int AS pending FROM order_count_deltas WHERE tenant_id = $1`,
      [shop.tenantId],
    );
    expect(pending).toBe(0);
    expect(await counters(shop.tenantId)).toEqual(truth);

    // The API's totals are these counts.
    const sum = (prefix: string, only: readonly string[] = ORDER_STATUSES) =>
      only.reduce((n, s) => n + (truth[`${prefix}:${s}`] ?? 0), 0);
    const total = async (path: string, token?: string) => {
      const res = await t.http.get(path).set(auth(token));
      expect(res.status).toBe(200);
      return (res.body as { meta: { total: number } }).meta.total;
    };
    expect(await total('/v1/orders?limit=1')).toBe(sum('0'));
    expect(await total('/v1/orders?limit=1&status=paid')).toBe(sum('0', ['paid']));
    expect(await total('/v1/orders?limit=1&status=paid,shipped,refunded')).toBe(
      sum('0', ['paid', 'shipped', 'refunded']),
    );
    expect(await total(`/v1/orders?limit=1&customer_id=${ada.id}`)).toBe(sum(String(ada.id)));
    expect(await total('/v1/customers/me/orders?limit=1', bob.token)).toBe(sum(String(bob.id)));
    expect(await total('/v1/customers/me/orders?limit=1&status=pending', lateCustomer.token)).toBe(
      sum(String(lateCustomer.id), ['pending']),
    );
  });

  it('seed orders refuses bad options and an unknown tenant with a clear error, writing nothing', async () => {
    ensureBuilt();
    const env = { DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'warn' };
    const cases: Array<[string[], string]> = [
      [['--tenant', String(shop.tenantId), '--count', '0'], 'validation_failed'],
      [['--tenant', String(shop.tenantId), '--count', '10000001'], 'validation_failed'],
      [['--tenant', String(shop.tenantId), '--count', '5', '--days', '36501'], 'validation_failed'],
      [
        ['--tenant', String(shop.tenantId), '--count', '5', '--customers', '-1'],
        'validation_failed',
      ],
      [['--tenant', '999999', '--count', '5'], 'not_found'],
    ];
    const before = await counted(shop.tenantId);
    // Five processes at once: each is mostly Node and Nest starting (a CPU-second or so), and
    // one after the other they took longer than a test may on a busy 2-core machine.
    const results = await Promise.all(
      cases.map(([args]) => runCli(['seed', 'orders', ...args, '--json'], env)),
    );
    for (const [i, result] of results.entries()) {
      expect(result.status).toBe(1);
      expect(JSON.parse(result.stdout)).toMatchObject({ error: cases[i][1] });
    }
    expect(await counted(shop.tenantId)).toEqual(before);
  });

  it('count orders written by plain SQL too (an older release during a deploy, a fix by hand), and deletions', async () => {
    const raw = await newShop(t);
    await placeOrder(t, raw);
    await t.dataSource.query(
      `INSERT INTO orders (tenant_id, status, currency, total_minor, customer_name, customer_email,
         shipping_country, shipping_city, shipping_address)
       SELECT $1, s, 'USD', 100, 'Raw', 'raw@example.com', 'TR', 'Istanbul', 'Street 1'
       FROM unnest(ARRAY['paid', 'paid', 'shipped']) AS s`,
      [raw.tenantId],
    );
    await t.dataSource.query(
      `UPDATE orders SET status = 'refunded' WHERE tenant_id = $1 AND status = 'shipped'`,
      [raw.tenantId],
    );
    await t.dataSource.query(
      `DELETE FROM orders WHERE id = (SELECT min(id) FROM orders WHERE tenant_id = $1 AND status = 'paid')`,
      [raw.tenantId],
    );
    expect(await counters(raw.tenantId)).toEqual(await counted(raw.tenantId));
    expect(await counters(raw.tenantId)).toEqual({ '0:pending': 1, '0:paid': 1, '0:refunded': 1 });
  });

  it('ascending sorts: the total counts only the orders the page can show (those behind the horizon)', async () => {
    const fresh = await newShop(t);
    for (let i = 0; i < 3; i++) await placeOrder(t, fresh);
    for (const sort of ['created_at', 'updated_at']) {
      const res = await t.http.get(`/v1/orders?limit=100&sort=${sort}`).set(auth(fresh.token));
      expect(res.status).toBe(200);
      const body = res.body as { data: unknown[]; meta: { total: number } };
      // Orders of the last second are not served yet; the total agrees with what is.
      expect(body.meta.total).toBe(body.data.length);
    }
    const descending = await t.http.get('/v1/orders?limit=100').set(auth(fresh.token));
    expect(descending.body).toMatchObject({ meta: { total: 3 } });
  });

  it('seed orders: the counters, lines and totals of a seeded tenant are consistent, and it writes no events', async () => {
    ensureBuilt();
    const seeded = await newShop(t);
    await verifiedCustomer('unused@example.com'); // another tenant's customer: never picked
    const result = await runCliJson(
      [
        'seed',
        'orders',
        '--tenant',
        String(seeded.tenantId),
        '--count',
        '2500',
        '--customers',
        '4',
        '--days',
        '30',
      ],
      { DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'warn' },
    );
    expect(Object.keys(result).sort()).toEqual(['count', 'seconds', 'tenant_id']);
    expect(result).toMatchObject({ tenant_id: seeded.tenantId, count: 2500 });
    expect(typeof result.seconds).toBe('number');

    expect(await counters(seeded.tenantId)).toEqual(await counted(seeded.tenantId));
    const [facts]: Array<Record<string, number>> = await t.dataSource.query(
      `SELECT count(*)::int AS orders,
         count(*) FILTER (WHERE o.total_minor <> (SELECT sum(total_minor) FROM order_items i
           WHERE i.tenant_id = o.tenant_id AND i.order_id = o.id))::int AS wrong_totals,
         count(*) FILTER (WHERE (SELECT count(*) FROM order_items i
           WHERE i.tenant_id = o.tenant_id AND i.order_id = o.id) NOT BETWEEN 1 AND 3)::int AS wrong_lines,
         count(*) FILTER (WHERE o.updated_at < o.created_at
           OR o.created_at < now() - interval '30 days' OR o.created_at > now())::int AS wrong_times,
         count(DISTINCT o.status)::int AS statuses,
         count(DISTINCT o.customer_id)::int AS customers,
         count(*) FILTER (WHERE o.customer_id IS NOT NULL AND o.customer_email <> c.email)::int AS wrong_emails,
         (SELECT count(*)::int FROM events WHERE tenant_id = $1 AND type NOT LIKE 'product.%') AS events
       FROM orders o LEFT JOIN customers c ON c.tenant_id = o.tenant_id AND c.id = o.customer_id
       WHERE o.tenant_id = $1`,
      [seeded.tenantId],
    );
    expect(facts).toEqual({
      orders: 2500,
      wrong_totals: 0,
      wrong_lines: 0,
      wrong_times: 0,
      statuses: 6,
      customers: 4,
      wrong_emails: 0,
      events: 0,
    });
    const list = await t.http.get('/v1/orders?limit=5&page=500').set(auth(seeded.token));
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ meta: { total: 2500, total_pages: 500, has_more: false } });
    expect((list.body as { data: unknown[] }).data).toHaveLength(5);
  });
});
