/**
 * Pages of events (the feed, an order's timeline) built from the stored JSON text of each
 * event's `data`, which is never parsed here: a page is the rows' texts joined once and sent.
 * A page holds at most `limit` events and ends before its body passes PAGE_BODY_LIMIT, with at
 * least one event (docs/BEHAVIOUR.md#limits), so the largest page costs the process a few MiB,
 * whatever the events hold.
 */
export const PAGE_BODY_LIMIT = 4 * 1024 * 1024;

/** What the page's own keys take beside its events: `{"data":[…],"next_cursor":…,"has_more":…}`. */
const PAGE_OVERHEAD = 1024;

/** The bytes the events of a page may take: PostgreSQL cuts the rows it sends by it. */
export const PAGE_EVENTS_BUDGET = PAGE_BODY_LIMIT - PAGE_OVERHEAD;

/**
 * The bytes an event's keys beside `data` take at most (`id`, `type`, `created_at`, quotes,
 * commas): added to each event's size when PostgreSQL cuts a page.
 */
export const EVENT_OVERHEAD = 200;

/** An event as a page reads it: `data` is its JSON text, null past the budget. */
export interface EventTextRow {
  id: string;
  type: string;
  created_at: Date;
  data: string | null;
}

/**
 * The events a page serves of `rows` (read in order, at most `limit` + 1 of them and cut near
 * the budget by PostgreSQL), each as its JSON text, and whether any was left for a later page.
 */
export function fitEventPage<R extends EventTextRow>(
  rows: readonly R[],
  limit: number,
): { served: Array<{ row: R; json: string }>; hasMore: boolean } {
  const served: Array<{ row: R; json: string }> = [];
  let bytes = 0;
  for (const row of rows) {
    if (served.length === limit || row.data === null) return { served, hasMore: true };
    const json =
      `{"id":${JSON.stringify(row.id)},"type":${JSON.stringify(row.type)},` +
      `"created_at":"${row.created_at.toISOString()}","data":${row.data}}`;
    // The keys are ASCII: only `data` needs its UTF-8 length measured.
    const size = json.length - row.data.length + Buffer.byteLength(row.data) + 1;
    if (served.length > 0 && bytes + size > PAGE_EVENTS_BUDGET) return { served, hasMore: true };
    served.push({ row, json });
    bytes += size;
  }
  return { served, hasMore: false };
}

/** The page's JSON text: `{data, next_cursor, has_more}`. */
export function eventPageJson(events: readonly string[], nextCursor: string, hasMore: boolean) {
  return `{"data":[${events.join(',')}],"next_cursor":"${nextCursor}","has_more":${hasMore}}`;
}
