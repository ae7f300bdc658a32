import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventsRepository } from '../../src/events/events.repository.js';
import { FEED_START } from '../../src/events/feed-cursor.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';
import { insertApp, untilEventsVisible } from '../support/tenant-rows.js';

describe('the event feed and order timelines, two tenants', () => {
  let r: RepositoryDatabase;
  const events = new EventsRepository();
  let appA: number;
  let otherAppA: number;
  /** An order id that both tenants' events name (events.order_id is not a foreign key). */
  const orderId = 424242;

  async function addEvent(
    tenantId: number,
    type: string,
    { appId = null, order = null }: { appId?: number | null; order?: number | null } = {},
  ): Promise<string> {
    const [row] = await r.inspect.query<Array<{ id: string }>>(
      `INSERT INTO events (tenant_id, type, app_id, order_id, data)
       VALUES ($1, $2, $3, $4, '{"object": {}}') RETURNING id`,
      [tenantId, type, appId, order],
    );
    return row.id;
  }

  let feedA: string[];

  beforeAll(async () => {
    r = await repositoryDatabase();
    appA = await insertApp(r.inspect, r.tenantA);
    otherAppA = await insertApp(r.inspect, r.tenantA);
    // Tenant B's app has tenant A's app id: only the tenant tells them apart.
    const appB = await insertApp(r.inspect, r.tenantB, { id: appA });
    await addEvent(r.tenantB, 'order.created', { order: orderId });
    const created = await addEvent(r.tenantA, 'order.created', { order: orderId });
    await addEvent(r.tenantB, 'app.secret_rotated', { appId: appB });
    const own = await addEvent(r.tenantA, 'app.secret_rotated', { appId: appA });
    await addEvent(r.tenantA, 'app.secret_rotated', { appId: otherAppA });
    const changed = await addEvent(r.tenantA, 'order.status_changed', { order: orderId });
    await addEvent(r.tenantB, 'order.status_changed', { order: orderId });
    feedA = [created, own, changed];
    await untilEventsVisible(r.inspect);
  }, 60_000);
  afterAll(() => r.close());

  const tenantA = () => r.transactions.db.tenant(r.tenantA);

  it('feed: the tenant’s events and the reader app’s own, in order, with the horizon', async () => {
    const { rows, horizon } = await events.feed(tenantA(), appA, FEED_START, 100, undefined);
    expect(rows.map((e) => e.id)).toEqual(feedA);
    expect(BigInt(horizon)).toBeGreaterThan(0n);
    const typed = await events.feed(tenantA(), appA, FEED_START, 100, [
      'order.status_changed',
      'app.secret_rotated',
    ]);
    expect(typed.rows.map((e) => e.id)).toEqual(feedA.slice(1));
    const after = await events.feed(tenantA(), appA, rows[0], 100, undefined);
    expect(after.rows.map((e) => e.id)).toEqual(feedA.slice(1));
    const limited = await events.feed(tenantA(), appA, FEED_START, 1, undefined);
    expect(limited.rows.map((e) => e.id)).toEqual(feedA.slice(0, 1));
  });

  it('purgedAfter: the tenant’s own purge mark only', async () => {
    const { rows } = await events.feed(tenantA(), appA, FEED_START, 100, undefined);
    const last = rows.at(-1)!;
    await r.inspect.query(`INSERT INTO event_purges (tenant_id, txid, seq) VALUES ($1, $2, $3)`, [
      r.tenantB,
      last.txid,
      last.seq + 1000,
    ]);
    expect(await events.purgedAfter(tenantA(), FEED_START)).toBe(false);
    await r.inspect.query(`INSERT INTO event_purges (tenant_id, txid, seq) VALUES ($1, $2, $3)`, [
      r.tenantA,
      rows[0].txid,
      rows[0].seq,
    ]);
    expect(await events.purgedAfter(tenantA(), FEED_START)).toBe(true);
    expect(await events.purgedAfter(tenantA(), rows[0])).toBe(false);
  });

  it('ofOrder: the tenant’s events of the order, no app’s private ones, after a place', async () => {
    const timeline = await events.ofOrder(tenantA(), orderId, 0, 100);
    expect(timeline.map((e) => e.id)).toEqual([feedA[0], feedA[2]]);
    expect(timeline.map((e) => e.type)).toEqual(['order.created', 'order.status_changed']);
    expect(JSON.parse(timeline[0].data!)).toEqual({ object: {} });
    const later = await events.ofOrder(tenantA(), orderId, timeline[0].seq, 100);
    expect(later.map((e) => e.id)).toEqual([feedA[2]]);
    expect((await events.ofOrder(tenantA(), orderId, 0, 1)).map((e) => e.id)).toEqual([feedA[0]]);
  });

  it('cuts a page near 4 MiB: the rows that fit with their text, the next one without, none after', async () => {
    const bigOrder = 515151;
    const note = 'x'.repeat(1.5 * 1024 * 1024);
    // Sized by the writer, and (the first two) written before sizes were kept.
    for (const size of [null, null, note.length + 12, note.length + 12]) {
      await r.inspect.query(
        `INSERT INTO events (tenant_id, type, order_id, data, size)
         VALUES ($1, 'order.updated', $2, jsonb_build_object('note', $3::text), $4)`,
        [r.tenantA, bigOrder, note, size],
      );
    }
    await untilEventsVisible(r.inspect);
    const timeline = await events.ofOrder(tenantA(), bigOrder, 0, 100);
    expect(timeline.map((e) => e.data === null)).toEqual([false, false, true]);
    expect(JSON.parse(timeline[1].data!)).toEqual({ note });
    const feed = await events.feed(tenantA(), appA, FEED_START, 100, ['order.updated']);
    expect(feed.rows.map((e) => e.data === null)).toEqual([false, false, true]);
    const next = await events.ofOrder(tenantA(), bigOrder, timeline[1].seq, 100);
    expect(next.map((e) => e.data === null)).toEqual([false, false]);
  });
});
