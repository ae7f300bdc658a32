import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import type { EventType } from '../outbox/event-types.js';
import { EVENT_OVERHEAD, PAGE_EVENTS_BUDGET, type EventTextRow } from './event-page.js';
import type { FeedPosition } from './feed-cursor.js';

/** An event read for a page: `data` is its stored JSON text (null past the page's budget). */
export interface EventRow extends EventTextRow {
  seq: number;
  txid: string;
  type: EventType;
}

/**
 * `ranked`, a query of events in `order` (at most a page and one more), cut near the page's
 * byte budget without rendering what is not sent: every row whose predecessors stay within
 * PAGE_EVENTS_BUDGET comes with its data's JSON text, except the one row that passes it (it
 * comes with `data` null: it says the page has more), and none after it. The sizes are the
 * writer's (`events.size`), measured here for events written before it existed.
 */
function cutByBytes(ranked: string, order: string): string {
  return `SELECT c.seq, c.txid, c.id, c.type, c.created_at,
       CASE WHEN c.upto <= ${PAGE_EVENTS_BUDGET} OR c.upto = c.bytes THEN c.data::text END AS data
     FROM (
       SELECT r.*, sum(r.bytes) OVER (ORDER BY ${order} ROWS UNBOUNDED PRECEDING) AS upto
       FROM (
         SELECT q.*, coalesce(q.size, octet_length(q.data::text)) + ${EVENT_OVERHEAD} AS bytes
         FROM (${ranked}) q) r) c
     WHERE c.upto - c.bytes < ${PAGE_EVENTS_BUDGET}`;
}

/** The path's tenant's events, as the feed and an order's timeline read them. */
@Injectable()
export class EventsRepository {
  /**
   * Events after `position` in commit-respecting order, as app `appId` sees them: the
   * tenant's and its own admin-action events. Only events of transactions below the
   * snapshot's xmin are served: every transaction there has ended, so nothing can still
   * commit before the returned position. A long transaction delays the feed, never reorders
   * it. Also returns that xmin (`horizon`): every event the reader may ever see is at or
   * after (horizon, 0), so a page that is not full lets the cursor move there, even when the
   * filters showed nothing. With `types`, one ordered, limited index range per type, merged.
   */
  async feed(
    db: TenantSql,
    appId: number,
    position: FeedPosition,
    limit: number,
    types: EventType[] | undefined,
  ): Promise<{ horizon: string; rows: EventRow[] }> {
    const params: unknown[] = [appId, position.txid, position.seq, limit];
    const range = (typeCondition: string) =>
      `SELECT seq, txid, id, type, data, size, created_at FROM events
       WHERE tenant_id = $1 AND (app_id IS NULL OR app_id = $2)
         AND (txid, seq) > ($3::xid8, $4::bigint) AND txid < h.xmin ${typeCondition}
       ORDER BY txid, seq LIMIT $5`;
    const ranges = types
      ? types
          .map((type) => `(${range(`AND type = $${params.push(type) + 1}`)})`)
          .join(' UNION ALL ')
      : range('');
    const rows = await db.rows<EventRow & { horizon: string }>(
      `WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin)
       SELECT h.xmin::text AS horizon, e.seq, e.txid::text AS txid, e.id, e.type, e.data, e.created_at
       FROM h LEFT JOIN LATERAL (${cutByBytes(
         `SELECT * FROM (${ranges}) merged ORDER BY txid, seq LIMIT $5`,
         'txid, seq',
       )}) e ON true
       ORDER BY e.txid, e.seq`,
      params,
    );
    const events: EventRow[] = rows.filter((r) => r.id !== null);
    return { horizon: rows[0].horizon, rows: events };
  }

  /** Whether retention removed an event of the tenant after `position`. */
  async purgedAfter(db: TenantSql, position: FeedPosition): Promise<boolean> {
    const rows = await db.rows(
      `SELECT 1 FROM event_purges WHERE tenant_id = $1 AND (txid, seq) > ($2::xid8, $3::bigint)`,
      [position.txid, position.seq],
    );
    return rows.length > 0;
  }

  /**
   * An order's events after `afterSeq`, oldest first, at most `limit` and cut by bytes as the
   * feed's (tenant-wide events only: no app's private ones). In the order they were written:
   * an order's changes hold its row lock one after the other, and each writes its events while
   * holding it, so `seq` follows them and a later page never finds an event before its cursor
   * (a later change's transaction may have the smaller txid if it began first).
   */
  ofOrder(db: TenantSql, orderId: number, afterSeq: number, limit: number): Promise<EventRow[]> {
    return db.rows<EventRow>(
      `SELECT t.seq, t.txid::text AS txid, t.id, t.type, t.created_at, t.data FROM (${cutByBytes(
        `SELECT seq, txid, id, type, data, size, created_at FROM events
         WHERE tenant_id = $1 AND order_id = $2 AND app_id IS NULL AND seq > $3
         ORDER BY seq LIMIT $4`,
        'seq',
      )}) t ORDER BY t.seq`,
      [orderId, afterSeq, limit],
    );
  }
}
