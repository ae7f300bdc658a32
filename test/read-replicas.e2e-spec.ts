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
    // Round robin: two reads each.
    expect(replicaNames.map(served)).toEqual([2, 2]);
  });

  it('a replica serves what it has replayed: with replay paused, a new product is not listed until it resumes', async () => {
    await Promise.all(replicas.map((r) => r.pauseReplay(true)));
    try {
      const id = await createProduct('WHILE-PAUSED');
      // Within READ_REPLICA_MAX_LAG_MS (2 s): both stay in rotation, and both lack it.
      expect(await listedSkus()).not.toContain('WHILE-PAUSED');
      expect(await listedSkus()).not.toContain('WHILE-PAUSED');
      // The primary serves a read by id: the writer reads its own write at once.
      expect((await get(t, `/v1/products/${id}`)).status).toBe(200);
    } finally {
      await Promise.all(replicas.map((r) => r.pauseReplay(false)));
    }
    await Promise.all(replicas.map((r) => r.caughtUp()));
    expect(await listedSkus()).toContain('WHILE-PAUSED');
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

  it('a feed walk across both replicas and the primary, while writers run and a replica lags, sees every event exactly once', async () => {
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
    const until = Date.now() + 4_000;
    while (Date.now() < until) await walk();
    load.writing = false;
    await Promise.all([...writers, lagger]);

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
    const reads = await readsBy();
    for (const name of replicaNames) expect(reads[name]).toBeGreaterThan(5);
    console.log(`feed walk: ${pages} pages, ${total} events each seen once; reads by pool`, reads);
  }, 60_000);
});
