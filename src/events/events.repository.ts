import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import type { EventType } from '../outbox/event-types.js';
import type { FeedPosition } from './feed-cursor.js';

export interface EventRow {
  seq: number;
  txid: string;
  id: string;
  type: EventType;
  data: Record<string, unknown>;
  created_at: Date;
}

const EVENT_COLUMNS = 'seq, txid::text AS txid, id, type, data, created_at';

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
      `SELECT seq, txid, id, type, data, created_at FROM events
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
       FROM h LEFT JOIN LATERAL (
         SELECT * FROM (${ranges}) merged ORDER BY txid, seq LIMIT $5) e ON true
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

  /** An order's events, oldest first (tenant-wide events only: no app's private ones). */
  ofOrder(db: TenantSql, orderId: number): Promise<EventRow[]> {
    return db.rows<EventRow>(
      // In the order they were written: an order's changes hold its row lock one after the
      // other, and each writes its events while holding it, so `seq` follows them (a later
      // change's transaction may have the smaller id if it began first). Never by the select
      // list's `txid`, a text alias: "1000" < "999".
      `SELECT ${EVENT_COLUMNS} FROM events
       WHERE tenant_id = $1 AND order_id = $2 AND app_id IS NULL
       ORDER BY events.seq LIMIT 1000`,
      [orderId],
    );
  }
}
