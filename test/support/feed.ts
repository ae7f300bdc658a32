import { within } from './eventually.js';
import type { TestApp } from './test-app.js';

export interface FeedEvent {
  id: string;
  type: string;
  created_at: string;
  data: { object: Record<string, unknown> } & Record<string, unknown>;
}

export interface FeedPage {
  data: FeedEvent[];
  next_cursor: string;
  has_more: boolean;
}

/** One page of GET /v1/events; fails the test unless it is a 200. */
export async function feedPage(
  t: TestApp,
  token: string,
  query: Record<string, string | number> = {},
): Promise<FeedPage> {
  const res = await t.http.get('/v1/events').query(query).set('authorization', `Bearer ${token}`);
  if (res.status !== 200) throw new Error(`GET /v1/events → ${res.status} ${res.text}`);
  return res.body as FeedPage;
}

/**
 * Waits until every event committed in this database is servable: the feed serves only
 * below the cluster's oldest open transaction, and other spec files share the cluster.
 */
export async function settleFeed(t: TestApp): Promise<void> {
  await within(15_000, async () => {
    const [{ settled }] = await t.dataSource.query<Array<{ settled: boolean }>>(
      `SELECT COALESCE((SELECT max(txid) FROM events) < pg_snapshot_xmin(pg_current_snapshot()), true)
         AS settled`,
    );
    return settled;
  });
}

/**
 * Follows the feed from `after` until it has nothing more; returns the events and the
 * cursor. Settles first, so every event committed before the call is in the result.
 */
export async function drainFeed(
  t: TestApp,
  token: string,
  after?: string,
  query: Record<string, string | number> = {},
): Promise<{ events: FeedEvent[]; cursor: string }> {
  await settleFeed(t);
  const events: FeedEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await feedPage(t, token, { ...query, ...(cursor ? { after: cursor } : {}) });
    events.push(...page.data);
    cursor = page.next_cursor;
    if (!page.has_more) return { events, cursor };
  }
}
