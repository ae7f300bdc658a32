import { Injectable } from '@nestjs/common';
import type { CrossTenantSql } from '../database/sql/cross-tenant-sql.js';
import type { SharedSql } from '../database/sql/shared-sql.js';

/** A place in the event log, in the feed's order. */
export interface LogPosition {
  txid: string;
  seq: number;
}

/** What one batch of the log made. */
export interface FanOut {
  /** Events passed (with or without deliveries). */
  events: number;
  /** Tenants that got deliveries. */
  tenants: number[];
  /** The batch's last event, where the position moves to; undefined when it was empty. */
  last?: LogPosition;
}

/**
 * The dispatcher's SQL: its position in the log (`webhook_dispatch`, one row no tenant owns)
 * and the fan-out of a batch of every tenant's events into deliveries (its cross-tenant path).
 */
@Injectable()
export class WebhookDispatchRepository {
  /**
   * The position, its row held until the transaction ends; undefined when another process
   * holds it (SKIP LOCKED: one dispatches at a time, the others return at once).
   */
  holdPosition(db: SharedSql): Promise<LogPosition | undefined> {
    return db.first<LogPosition>(
      'SELECT txid::text AS txid, seq FROM webhook_dispatch FOR UPDATE SKIP LOCKED',
    );
  }

  /** The position, read without a lock (for `anythingAfter`). */
  position(db: SharedSql): Promise<LogPosition | undefined> {
    return db.first<LogPosition>('SELECT txid::text AS txid, seq FROM webhook_dispatch');
  }

  /**
   * Whether any event after `from` is ready to dispatch (by the feed's commit rule): a read
   * that writes nothing, so an idle poll costs no transaction id, WAL or fsync.
   */
  async anythingAfter(db: CrossTenantSql, from: LogPosition): Promise<boolean> {
    const rows = await db.rows(
      `SELECT 1 FROM events e
       WHERE (e.txid, e.seq) > ($1::xid8, $2::bigint)
         AND e.txid < pg_snapshot_xmin(pg_current_snapshot())
       LIMIT 1`,
      [from.txid, from.seq],
    );
    return rows.length > 0;
  }

  async movePosition(db: SharedSql, to: LogPosition): Promise<void> {
    await db.count('UPDATE webhook_dispatch SET txid = $1::xid8, seq = $2', [to.txid, to.seq]);
  }

  /**
   * Makes the deliveries of up to `limit` events after `from` (of every tenant, only of
   * transactions below the snapshot's xmin: the feed's commit rule) for the matching active
   * endpoints of active apps entitled to the type (`entitlements`: parallel type and scope
   * arrays), in their endpoint's line. The unique (endpoint, event) makes a repeat a no-op.
   */
  async fanOut(
    db: CrossTenantSql,
    from: LogPosition,
    limit: number,
    entitlements: [string[], string[]],
  ): Promise<FanOut> {
    // The position as parameters: a row comparison with constants is an index condition.
    const row = await db.first<{
      events: number;
      tenants: number[];
      last_txid: string | null;
      last_seq: number | null;
    }>(
      `WITH batch AS (
           SELECT e.tenant_id, e.seq, e.txid, e.type, e.app_id, e.created_at
           FROM events e
           WHERE (e.txid, e.seq) > ($2::xid8, $3::bigint)
             AND e.txid < pg_snapshot_xmin(pg_current_snapshot())
           ORDER BY e.txid, e.seq LIMIT $1),
         created AS (
           INSERT INTO webhook_deliveries
             (tenant_id, endpoint_id, event_seq, next_attempt_at, waiting_since)
           SELECT b.tenant_id, ep.id, b.seq, now(), now()
           FROM batch b JOIN webhook_endpoints ep
             ON ep.tenant_id = b.tenant_id AND ep.active AND b.type = ANY (ep.event_types)
            AND (b.app_id IS NULL OR b.app_id = ep.app_id) AND ep.created_at <= b.created_at
           JOIN apps a ON a.tenant_id = ep.tenant_id AND a.id = ep.app_id AND a.active
           WHERE b.app_id IS NOT NULL OR EXISTS (
             SELECT 1 FROM unnest($4::text[], $5::text[]) AS g(type, scope)
             WHERE g.type = b.type AND g.scope = ANY (a.approved_scopes))
           -- Ids in the log's order: deliveries that fell due together (one batch, one now())
           -- go in line by event across a tenant's endpoints, not one endpoint's all first.
           ORDER BY b.txid, b.seq, ep.id
           ON CONFLICT DO NOTHING
           RETURNING tenant_id),
         last AS (SELECT txid, seq FROM batch ORDER BY txid DESC, seq DESC LIMIT 1)
       SELECT (SELECT count(*)::int FROM batch) AS events,
         COALESCE((SELECT array_agg(DISTINCT tenant_id) FROM created), '{}') AS tenants,
         (SELECT txid::text FROM last) AS last_txid, (SELECT seq FROM last) AS last_seq`,
      [limit, from.txid, from.seq, ...entitlements],
    );
    const { events, tenants, last_txid, last_seq } = row!;
    return {
      events,
      tenants,
      last: last_txid === null ? undefined : { txid: last_txid, seq: last_seq! },
    };
  }
}
