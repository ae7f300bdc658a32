import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReadReplicas } from '../src/database/read-replicas.service.js';
import { within } from './support/eventually.js';
import { newShop, placeOrder, type Shop } from './support/factories.js';
import type { FeedPage } from './support/feed.js';
import { startOwnedPostgres, type OwnedPostgres } from './support/owned-postgres.js';
import { startStreamingReplica, type StreamingReplica } from './support/streaming-replica.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { deploymentSecrets } from './support/two-instances.js';

/**
 * CONTRACT 8, read replicas, against real streaming replicas of a primary the spec owns
 * (embedded PostgreSQL binaries, a base backup with standby.signal): the reads it lists are
 * served by replicas; a paused or stopped replica is left out by the background checks and
 * taken back once it catches up; and a feed walk whose pages land on two replicas and the
 * primary, while writers run and one replica keeps falling behind, sees every event once.
 */
describe('read replicas (two streaming replicas of an owned primary)', () => {
  let primary: OwnedPostgres;
  let replicas: StreamingReplica[];
  let t: TestApp;
  /** A second instance without replicas: its reads are the primary's. */
  let onPrimary: TestApp;
  let shop: Shop;
  let replicaNames: string[];

  beforeAll(async () => {
    primary = await startOwnedPostgres();
    const url = await primary.createDatabase('storefront');
    replicas = [
      await startStreamingReplica(primary, 'r1'),
      await startStreamingReplica(primary, 'r2'),
    ];
    const env = { ...deploymentSecrets(), API_RATE_LIMIT_PER_TOKEN: '1000000' };
    t = await createTestApp(
      { ...env, DATABASE_READ_URLS: replicas.map((r) => r.urlOf('storefront')).join(',') },
      [],
      undefined,
      url,
    );
    onPrimary = await createTestApp(env, [], undefined, url);
    replicaNames = t.app
      .get(ReadReplicas)
      .state()
      .replicas.map((r) => r.name);
    shop = await newShop(t);
    await Promise.all(replicas.map((r) => r.caughtUp()));
    await within(5_000, async () => (await inRotation()).every(Boolean));
  }, 120_000);

  afterAll(async () => {
    await onPrimary?.close();
    await t?.close();
    for (const replica of replicas ?? []) await replica.stop('immediate').catch(() => undefined);
    await primary?.destroy();
  });

  const get = (app: TestApp, path: string) =>
    app.http.get(path).set('authorization', `Bearer ${shop.token}`);

  async function metrics(): Promise<string> {
    return (await t.http.get('/metrics')).text;
  }

  async function inRotation(): Promise<boolean[]> {
    const text = await metrics();
    return replicaNames.map((name) =>
      text.includes(`storefront_read_replica_in_rotation{replica="${name}"} 1`),
    );
  }

  async function readsBy(): Promise<Record<string, number>> {
    const text = await metrics();
    const reads: Record<string, number> = {};
    for (const [, pool, n] of text.matchAll(
      /^storefront_replica_eligible_reads_total\{pool="([^"]+)"\} (\d+)$/gm,
    )) {
      reads[pool] = Number(n);
    }
    return reads;
  }

  async function createProduct(sku: string): Promise<number> {
    const res = await t.http
      .post('/v1/products')
      .set('authorization', `Bearer ${shop.token}`)
      .send({ sku, name: sku, price: 1 });
    expect(res.status).toBe(201);
    return (res.body as { id: number }).id;
  }

  async function listedSkus(): Promise<string[]> {
    const res = await get(t, '/v1/products?limit=100');
    expect(res.status).toBe(200);
    return (res.body as { data: Array<{ sku: string }> }).data.map((p) => p.sku);
  }

  it('serves product lists, the feed and data exports from the replicas, never a write or a read by id', async () => {
    const before = await readsBy();
    expect((await get(t, '/v1/products')).status).toBe(200);
    expect((await get(t, '/v1/products')).status).toBe(200);
    expect((await get(t, '/v1/events')).status).toBe(200);
    const exported = await t.http
      .post('/v1/customers/data-exports')
      .set('authorization', `Bearer ${shop.token}`)
      .send({ email: 'ada@example.com' });
    expect(exported.status).toBe(200);
    expect((await get(t, `/v1/products/${shop.product}`)).status).toBe(200);
    const after = await readsBy();
    const served = (pool: string) => (after[pool] ?? 0) - (before[pool] ?? 0);
    expect(served('primary')).toBe(0);
    // Round robin among the replicas known to be far enough ahead: all four, both taking part.
    expect(served(replicaNames[0]) + served(replicaNames[1])).toBe(4);
    for (const name of replicaNames) expect(served(name)).toBeGreaterThan(0);
  });

  it('a replica never answers older than the primary when the request came: an erasure, then an export and a list while both replicas are paused', async () => {
    const email = `erased-${Date.now()}@example.com`;
    await placeOrder(t, shop, email);
    await Promise.all(replicas.map((r) => r.caughtUp()));
    const before = await readsBy();
    await Promise.all(replicas.map((r) => r.pauseReplay(true)));
    try {
      const erased = await t.http
        .post('/v1/customers/erasures')
        .set('authorization', `Bearer ${shop.token}`)
        .set('idempotency-key', `erase-${email}`)
        .send({ email });
      expect(erased.status).toBe(200);
      await createProduct('WHILE-PAUSED');
      // Both replicas stay in rotation (within READ_REPLICA_MAX_LAG_MS) and lack both writes:
      // each read waits for them, then the primary answers.
      const exported = await t.http
        .post('/v1/customers/data-exports')
        .set('authorization', `Bearer ${shop.token}`)
        .send({ email });
      expect(exported.status).toBe(200);
      // Nothing holds the email any more; a replica still behind the erasure would answer
      // the order with it.
      expect(exported.body).toMatchObject({ customer: null, orders: [] });
      expect(await listedSkus()).toContain('WHILE-PAUSED');
      expect(await inRotation()).toEqual([true, true]);
    } finally {
      await Promise.all(replicas.map((r) => r.pauseReplay(false)));
    }
    const after = await readsBy();
    expect((after.primary ?? 0) - (before.primary ?? 0)).toBe(2);
    // Caught up, the replicas serve again, and see both writes.
    await Promise.all(replicas.map((r) => r.caughtUp()));
    expect(await listedSkus()).toContain('WHILE-PAUSED');
    expect(await listedSkus()).toContain('WHILE-PAUSED');
    const last = await readsBy();
    // A replica known to have replayed far enough goes first, so not always one each.
    const byReplicas = replicaNames.map((n) => (last[n] ?? 0) - (after[n] ?? 0));
    expect(byReplicas[0] + byReplicas[1]).toBe(2);
    expect(last.primary).toBe(after.primary);
  });

  it('a standby of another database is never taken: an instance whose primary is another database leaves the replicas out', async () => {
    const otherUrl = await primary.createDatabase('other');
    const other = await createTestApp(
      { DATABASE_READ_URLS: replicas.map((r) => r.urlOf('storefront')).join(',') },
      [],
      undefined,
      otherUrl,
    );
    try {
      const state = other.app.get(ReadReplicas).state();
      expect(state.replicas.map((r) => r.usable)).toEqual([false, false]);
      expect((await other.http.get('/metrics')).text).toContain(
        `storefront_read_replica_in_rotation{replica="${replicaNames[0]}"} 0`,
      );
    } finally {
      await other.close();
    }
  });

  it('a paused replica is left out once it lags past READ_REPLICA_MAX_LAG_MS, and taken back after it resumes', async () => {
    const [r1] = replicas;
    await r1.pauseReplay(true);
    try {
      // Writes move the primary on; the paused replica falls behind by the clock.
      let n = 0;
      await within(10_000, async () => {
        await placeOrder(t, shop);
        n++;
        return !(await inRotation())[0];
      });
      expect(n).toBeGreaterThan(0);
      await createProduct('AFTER-LEFT-OUT');
      await replicas[1].caughtUp();
      // Only the other replica serves now: every list has the new product.
      for (let i = 0; i < 4; i++) expect(await listedSkus()).toContain('AFTER-LEFT-OUT');
    } finally {
      await r1.pauseReplay(false);
    }
    await within(10_000, async () => (await inRotation())[0]);
  });

  it('a stopped replica is left out (no read fails meanwhile) and taken back when it is started again', async () => {
    const [, r2] = replicas;
    await r2.stop('fast');
    try {
      // Reads go on: one that lands on the stopped replica before a check notices is
      // answered by the primary.
      for (let i = 0; i < 6; i++) expect((await get(t, '/v1/products')).status).toBe(200);
      await within(5_000, async () => !(await inRotation())[1]);
    } finally {
      await r2.start();
    }
    await within(15_000, async () => (await inRotation())[1]);
  });

  /** Pages each replica must serve of the feed walk (its pages also go to the primary). */
  const REPLICA_PAGES = 5;

  it('a feed walk across both replicas and the primary, while writers run and a replica lags, sees every event exactly once', async () => {
    const readsBefore = await readsBy();
    const seen = new Map<string, number>();
    let cursor: string | undefined;
    const apps = [t, t, onPrimary];
    let pages = 0;
    const walk = async (): Promise<boolean> => {
      const app = apps[pages++ % apps.length];
      const res = await get(app, `/v1/events?limit=7${cursor ? `&after=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      const page = res.body as FeedPage;
      for (const event of page.data) seen.set(event.id, (seen.get(event.id) ?? 0) + 1);
      cursor = page.next_cursor;
      return page.has_more;
    };

    const load = { writing: true };
    const writers = Array.from({ length: 3 }, async () => {
      while (load.writing) await placeOrder(t, shop);
    });
    // One replica keeps falling behind and catching up, within the lag limit, so pages
    // alternate between servers at different points of the WAL.
    const lagger = (async () => {
      while (load.writing) {
        await replicas[0].pauseReplay(true);
        await new Promise((resolve) => setTimeout(resolve, 150));
        await replicas[0].pauseReplay(false);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    // At least 4 s, and on until each replica has served pages of this walk: under a loaded
    // machine a replica may be out of rotation for much of a fixed window.
    const replicaPages = async () => {
      const reads = await readsBy();
      return replicaNames.map((name) => reads[name] - (readsBefore[name] ?? 0));
    };
    const until = Date.now() + 4_000;
    const limit = Date.now() + 30_000;
    try {
      while (Date.now() < until) await walk();
      while (Date.now() < limit && (await replicaPages()).some((n) => n <= REPLICA_PAGES)) {
        for (let i = 0; i < 10; i++) await walk();
      }
    } finally {
      load.writing = false;
      await Promise.allSettled([...writers, lagger]);
    }

    // Everything committed is below every server's horizon once the replicas caught up.
    await Promise.all(replicas.map((r) => r.caughtUp()));
    const [{ total }] = await t.dataSource.query<Array<{ total: number }>>(
      `SELECT count(*)::int AS total FROM events WHERE tenant_id = $1`,
      [shop.tenantId],
    );
    await within(30_000, async () => {
      while (await walk());
      return seen.size >= total;
    });
    expect(seen.size).toBe(total);
    expect([...seen.values()].filter((n) => n !== 1)).toEqual([]);
    expect(pages).toBeGreaterThan(20);
    // Pages of this walk, not reads of earlier tests.
    const served = await replicaPages();
    for (const n of served) expect(n).toBeGreaterThan(REPLICA_PAGES);
    console.log(
      `feed walk: ${pages} pages, ${total} events each seen once; pages served by the replicas: ${served.join(', ')}`,
    );
  }, 60_000);

  /** Follows one cursor-mode order walk, its pages spread over `apps`, to `has_more: false`. */
  async function walkOrders(
    sort: string,
    while_: () => boolean,
  ): Promise<{ seen: Map<number, number>; pages: number; cursor: string | null }> {
    const seen = new Map<number, number>();
    const apps = [t, t, onPrimary];
    let pages = 0;
    let cursor: string | null = null;
    const page = async (): Promise<boolean> => {
      const app = apps[pages++ % apps.length];
      // The first page is page mode (page 1), which also gives a cursor.
      const query = cursor ? `cursor=${cursor}&limit=5` : `sort=${sort}&limit=5`;
      const res = await get(app, `/v1/orders?${query}`);
      expect(res.status).toBe(200);
      const body = res.body as {
        data: Array<{ id: number }>;
        meta: { next_cursor: string | null; has_more: boolean };
      };
      for (const order of body.data) seen.set(order.id, (seen.get(order.id) ?? 0) + 1);
      cursor = body.meta.next_cursor;
      return body.meta.has_more;
    };
    // A walk with nothing yet below its horizon has no cursor: it starts again from page 1.
    while ((await page()) || while_()) if (cursor === null && !while_()) break;
    return { seen, pages, cursor };
  }

  it('order walks in cursor mode across both replicas and the primary, while orders are written and a replica lags: every order once', async () => {
    const readsBefore = await readsBy();
    // Writers for 4 s; the walks then run on to their ends.
    const until = Date.now() + 4_000;
    const load = { stop: false, placed: 0 };
    const going = () => !load.stop && Date.now() < until;
    const writers = Array.from({ length: 3 }, async () => {
      for (; going(); load.placed++) await placeOrder(t, shop);
    });
    // One replica falls up to 1.5 s behind and catches up, again and again: within
    // READ_REPLICA_MAX_LAG_MS, so it stays in rotation, and more than the ascending walk's
    // 1 s horizon margin, so a page it served stale would skip orders.
    const lagger = (async () => {
      while (going()) {
        await replicas[0].pauseReplay(true);
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        await replicas[0].pauseReplay(false);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    })();
    let before: number[];
    let descending: Awaited<ReturnType<typeof walkOrders>>;
    let walked: Awaited<ReturnType<typeof walkOrders>>;
    try {
      await within(10_000, async () => load.placed >= 40);
      [{ before }] = await t.dataSource.query<Array<{ before: number[] }>>(
        `SELECT array_agg(id::int) AS before FROM orders WHERE tenant_id = $1`,
        [shop.tenantId],
      );
      // Newest first: every order committed when the walk began, once (later ones land
      // ahead of it).
      descending = await walkOrders('-created_at', () => false);
      // Oldest first, while the writers write and after: it follows them to the end.
      walked = await walkOrders('created_at', going);
    } finally {
      load.stop = true;
      await Promise.allSettled([...writers, lagger]);
    }

    expect([...descending.seen.values()].filter((n) => n !== 1)).toEqual([]);
    for (const id of before) expect(descending.seen.has(id)).toBe(true);

    // The ascending walk goes on from its cursor until the horizon passes every order.
    const [{ total }] = await t.dataSource.query<Array<{ total: number }>>(
      `SELECT count(*)::int AS total FROM orders WHERE tenant_id = $1`,
      [shop.tenantId],
    );
    let cursor = walked.cursor!;
    await within(15_000, async () => {
      for (;;) {
        const res = await get(t, `/v1/orders?cursor=${cursor}&limit=50`);
        expect(res.status).toBe(200);
        const body = res.body as {
          data: Array<{ id: number }>;
          meta: { next_cursor: string; has_more: boolean };
        };
        for (const order of body.data)
          walked.seen.set(order.id, (walked.seen.get(order.id) ?? 0) + 1);
        cursor = body.meta.next_cursor;
        if (!body.meta.has_more) return walked.seen.size >= total;
      }
    });
    expect(walked.seen.size).toBe(total);
    expect([...walked.seen.values()].filter((n) => n !== 1)).toEqual([]);
    const readsAfter = await readsBy();
    for (const name of replicaNames) {
      expect((readsAfter[name] ?? 0) - (readsBefore[name] ?? 0)).toBeGreaterThan(0);
    }
    console.log(
      `order walks: descending ${descending.pages} pages, ascending ${walked.pages} pages, ` +
        `${total} orders each once; reads by pool`,
      readsAfter,
    );
  }, 60_000);
});
