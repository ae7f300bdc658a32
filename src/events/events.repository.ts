import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { requireTenant } from '../common/tenant-scope.js';
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

/** Who reads: an app sees its tenant's events and its own admin-action events. */
export interface EventReader {
  tenantId: number;
  appId: number;
}

@Injectable()
export class EventsRepository {
  /**
   * Events after `position` in commit-respecting order. Only events of transactions below
   * the snapshot's xmin are served: every transaction there has ended, so nothing can still
   * commit before the returned position. A long transaction delays the feed, never reorders
   * it. Also returns that xmin (`horizon`): every event the reader may ever see is at or
   * after (horizon, 0), so a page that is not full lets the cursor move there, even when the
   * filters showed nothing. With `types`, one ordered, limited index range per type, merged.
   */
  async feed(
    m: EntityManager,
    reader: EventReader,
    position: FeedPosition,
    limit: number,
    types: EventType[] | undefined,
  ): Promise<{ horizon: string; rows: EventRow[] }> {
    requireTenant(reader.tenantId);
    const params: unknown[] = [reader.tenantId, reader.appId, position.txid, position.seq, limit];
    const range = (typeCondition: string) =>
      `SELECT seq, txid, id, type, data, created_at FROM events
       WHERE tenant_id = $1 AND (app_id IS NULL OR app_id = $2)
         AND (txid, seq) > ($3::xid8, $4::bigint) AND txid < h.xmin ${typeCondition}
       ORDER BY txid, seq LIMIT $5`;
    const ranges = types
      ? types.map((type) => `(${range(`AND type = $${params.push(type)}`)})`).join(' UNION ALL ')
      : range('');
    const rows: Array<EventRow & { horizon: string }> = await m.query(
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
  async purgedAfter(m: EntityManager, tenantId: number, position: FeedPosition): Promise<boolean> {
    requireTenant(tenantId);
    const rows: unknown[] = await m.query(
      `SELECT 1 FROM event_purges WHERE tenant_id = $1 AND (txid, seq) > ($2::xid8, $3::bigint)`,
      [tenantId, position.txid, position.seq],
    );
    return rows.length > 0;
  }

  /** An order's events, oldest first (tenant-wide events only: no app's private ones). */
  async ofOrder(m: EntityManager, tenantId: number, orderId: number): Promise<EventRow[]> {
    requireTenant(tenantId);
    return m.query(
      `SELECT ${EVENT_COLUMNS} FROM events
       WHERE tenant_id = $1 AND order_id = $2 AND app_id IS NULL
       ORDER BY txid, seq LIMIT 1000`,
      [tenantId, orderId],
    );
  }
}
