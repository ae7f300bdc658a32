import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_BODY_LIMIT } from '../src/events/event-page.js';
import { drainFeed, settleFeed, type FeedPage } from './support/feed.js';
import { newShop, placeOrder, type Shop } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** The largest note, tags and metadata an order may carry, in 4-byte characters (~128 KB). */
function largestPatch(round: number) {
  const emoji = Array.from({ length: 30 }, (_, i) => String.fromCodePoint(0x1f600 + i));
  const run = (length: number, from: number) =>
    Array.from({ length }, (_, i) => emoji[(i + from) % emoji.length]).join('');
  return {
    note: `${round}`.padStart(4, '0') + run(4996, round),
    tags: Array.from({ length: 50 }, (_, i) => `${i}`.padStart(2, '0') + run(38, i)),
    metadata: Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`k${i}`, run(500, i + round)]),
    ),
  };
}

describe('pages of events: the order timeline and the feed (CONTRACT 3.4, 3.9, 4)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const timeline = (s: Shop, orderId: number, query: Record<string, string | number> = {}) =>
    t.http
      .get(`/v1/orders/${orderId}/events`)
      .query(query)
      .set('authorization', `Bearer ${s.token}`);

  /** Follows an order's timeline to its end; every page a 200. */
  async function walkTimeline(s: Shop, orderId: number, limit: number) {
    const pages: FeedPage[] = [];
    let after: string | undefined;
    for (;;) {
      const res = await timeline(s, orderId, { limit, ...(after ? { after } : {}) });
      expect(res.status).toBe(200);
      pages.push(res.body as FeedPage);
      after = res.body.next_cursor;
      if (!res.body.has_more) return { pages, cursor: after! };
    }
  }

  const patch = (s: Shop, orderId: number, body: object) =>
    t.http.patch(`/v1/orders/${orderId}`).set('authorization', `Bearer ${s.token}`).send(body);

  it('pages the timeline with after and limit: every event once, oldest first, then what came later', async () => {
    const s = await newShop(t);
    const order = await placeOrder(t, s);
    for (let i = 0; i < 7; i++)
      expect((await patch(s, order.id, { note: `n${i}` })).status).toBe(200);
    const paid = await t.http
      .post(`/v1/orders/${order.id}/status`)
      .set('authorization', `Bearer ${s.token}`)
      .send({ status: 'paid' });
    expect(paid.status).toBe(200);

    const { pages, cursor } = await walkTimeline(s, order.id, 3);
    expect(pages.map((p) => p.data.length)).toEqual([3, 3, 3]);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
    const walked = pages.flatMap((p) => p.data);
    const { events } = await drainFeed(t, s.token);
    expect(walked).toEqual(events.filter((e) => e.type.startsWith('order.')));
    expect(walked.at(-1)!.type).toBe('order.status_changed');

    // The last cursor waits for what happens next, and no event comes twice.
    const empty = await timeline(s, order.id, { after: cursor });
    expect(empty.body).toEqual({ data: [], next_cursor: cursor, has_more: false });
    expect((await patch(s, order.id, { note: 'later' })).status).toBe(200);
    const later = await timeline(s, order.id, { after: cursor });
    expect(later.body.data.map((e: { type: string }) => e.type)).toEqual(['order.updated']);
    expect(later.body.data[0].data.object.note).toBe('later');

    // The default page holds 100.
    const whole = await timeline(s, order.id);
    expect(whole.body.data).toHaveLength(10);
    expect(whole.body.has_more).toBe(false);
  });

  it('refuses a limit out of 1–500, a cursor it did not make or of another order; 404 for a foreign order', async () => {
    const s = await newShop(t);
    const other = await newShop(t);
    const order = await placeOrder(t, s);
    const second = await placeOrder(t, s);
    const cursorOfSecond = (await timeline(s, second.id)).body.next_cursor as string;
    for (const query of <Array<Record<string, string | number>>>[
      { limit: 0 },
      { limit: 501 },
      { limit: 'x' },
      { after: 'nope' },
      { after: cursorOfSecond },
      { after: (await drainFeed(t, s.token)).cursor },
    ]) {
      const res = await timeline(s, order.id, query);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(res.body.error).toBe('validation_failed');
    }
    expect((await timeline(s, order.id, { limit: 500 })).status).toBe(200);
    const foreign = await timeline(other, order.id);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('not_found');
  });

  it('ends a page before 4 MiB of body, with at least one event, for the largest orders', async () => {
    const s = await newShop(t);
    const order = await placeOrder(t, s);
    const rounds = 40;
    for (let i = 0; i < rounds; i++) {
      expect((await patch(s, order.id, largestPatch(i))).status).toBe(200);
    }
    const first = await timeline(s, order.id, { limit: 500 });
    expect(first.status).toBe(200);
    expect(Buffer.byteLength(first.text)).toBeLessThanOrEqual(PAGE_BODY_LIMIT);
    expect(first.body.has_more).toBe(true);
    expect(first.body.data.length).toBeGreaterThan(20);
    expect(first.body.data.length).toBeLessThan(rounds);

    const { pages } = await walkTimeline(s, order.id, 500);
    const notes = pages.flatMap((p) => p.data).map((e) => e.data.object.note);
    expect(notes).toHaveLength(rounds + 1);
    expect(notes.slice(1)).toEqual(Array.from({ length: rounds }, (_, i) => largestPatch(i).note));

    // The feed of the same events, at its largest limit: also under 4 MiB a page.
    await settleFeed(t);
    const feed = await t.http
      .get('/v1/events')
      .query({ types: 'order.updated', limit: 500 })
      .set('authorization', `Bearer ${s.token}`);
    expect(feed.status).toBe(200);
    expect(Buffer.byteLength(feed.text)).toBeLessThanOrEqual(PAGE_BODY_LIMIT);
    expect(feed.body.has_more).toBe(true);
    const { events } = await drainFeed(t, s.token, undefined, {
      types: 'order.updated',
      limit: 500,
    });
    expect(events.map((e) => e.data.object.note)).toEqual(notes.slice(1));
  });
});
