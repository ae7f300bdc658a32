import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import type { EventType } from '../outbox/event-types.js';
import type { DeliveryState } from './dto/webhook-endpoint.dto.js';

export interface EndpointRow {
  id: number;
  app_id: number;
  url: string;
  description: string | null;
  event_types: EventType[];
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface DeliveryRow {
  id: number;
  event_id: string;
  event_type: EventType;
  attempts: number;
  state: DeliveryState;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  created_at: Date;
}

/** An endpoint's columns as the API shows them (never its secrets). */
export const ENDPOINT_COLUMNS =
  'id, app_id, url, description, event_types, active, created_at, updated_at';

/** A delivery as the log shows it, with its event's id and type. */
const DELIVERY_SELECT = `SELECT d.id, e.id AS event_id, e.type AS event_type, d.attempts, d.state,
    d.last_status_code, d.last_error, d.last_attempt_at, d.next_attempt_at, d.created_at
  FROM webhook_deliveries d JOIN events e ON e.tenant_id = d.tenant_id AND e.seq = d.event_seq`;

export interface EndpointChange {
  url?: string;
  event_types?: EventType[];
  active?: boolean;
  description?: string | null;
}

/**
 * Webhook endpoint and delivery SQL on the tenant path ($1 is the tenant); endpoints by their
 * app (another app's are "not found"), in the caller's unit of work.
 */
@Injectable()
export class WebhookEndpointsRepository {
  /**
   * Serialises endpoint creation per app, so the per-app maximum holds under concurrency;
   * returns how many endpoints the app has.
   */
  async lockApp(db: TenantSql, appId: number): Promise<number> {
    await db.rows(
      'SELECT pg_advisory_xact_lock(7240101, id::int) FROM apps WHERE tenant_id = $1 AND id = $2',
      [appId],
    );
    const row = await db.first<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE tenant_id = $1 AND app_id = $2',
      [appId],
    );
    return row!.n;
  }

  async insert(
    db: TenantSql,
    appId: number,
    values: { url: string; eventTypes: EventType[]; description: string | null; secret: Buffer },
  ): Promise<EndpointRow> {
    const row = await db.first<EndpointRow>(
      `INSERT INTO webhook_endpoints (tenant_id, app_id, url, event_types, description, secret_ciphertext)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${ENDPOINT_COLUMNS}`,
      [appId, values.url, values.eventTypes, values.description, values.secret],
    );
    return row!;
  }

  list(db: TenantSql, appId: number): Promise<EndpointRow[]> {
    return db.rows<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 AND app_id = $2 ORDER BY id`,
      [appId],
    );
  }

  find(db: TenantSql, appId: number, id: number): Promise<EndpointRow | undefined> {
    return db.first<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 AND app_id = $2 AND id = $3`,
      [appId, id],
    );
  }

  /** Applies the given fields; resuming or a new url also clears the failure streak. */
  update(
    db: TenantSql,
    appId: number,
    id: number,
    change: EndpointChange,
  ): Promise<EndpointRow | undefined> {
    return db.first<EndpointRow>(
      `UPDATE webhook_endpoints SET
         url = COALESCE($4, url),
         event_types = COALESCE($5, event_types),
         active = COALESCE($6, active),
         failing_since = CASE WHEN $6 OR $4::text IS NOT NULL THEN NULL ELSE failing_since END,
         description = CASE WHEN $7 THEN $8 ELSE description END,
         updated_at = now()
       WHERE tenant_id = $1 AND app_id = $2 AND id = $3
       RETURNING ${ENDPOINT_COLUMNS}`,
      [
        appId,
        id,
        change.url ?? null,
        change.event_types ?? null,
        change.active ?? null,
        change.description !== undefined,
        change.description ?? null,
      ],
    );
  }

  async remove(db: TenantSql, appId: number, id: number): Promise<boolean> {
    const removed = await db.count(
      'DELETE FROM webhook_endpoints WHERE tenant_id = $1 AND app_id = $2 AND id = $3',
      [appId, id],
    );
    return removed > 0;
  }

  /** The new secret signs from now on; the current one keeps signing until `overlapUntil`. */
  rotateSecret(
    db: TenantSql,
    appId: number,
    id: number,
    secret: Buffer,
    overlapSeconds: number,
  ): Promise<EndpointRow | undefined> {
    return db.first<EndpointRow>(
      `UPDATE webhook_endpoints SET
         previous_secret_ciphertext = secret_ciphertext,
         previous_secret_expires_at = now() + make_interval(secs => $5),
         secret_ciphertext = $4,
         updated_at = now()
       WHERE tenant_id = $1 AND app_id = $2 AND id = $3
       RETURNING ${ENDPOINT_COLUMNS}`,
      [appId, id, secret, overlapSeconds],
    );
  }

  async deliveries(
    db: TenantSql,
    endpointId: number,
    limit: number,
    offset: number,
  ): Promise<{ rows: DeliveryRow[]; total: number }> {
    // One after the other: an expensive request holds one connection at a time (the caps
    // on expensive requests count a place as a connection).
    const rows = await db.rows<DeliveryRow>(
      `${DELIVERY_SELECT}
       WHERE d.tenant_id = $1 AND d.endpoint_id = $2
       ORDER BY d.id DESC LIMIT $3 OFFSET $4`,
      [endpointId, limit, offset],
    );
    const count = await db.first<{ total: number }>(
      'SELECT count(*)::int AS total FROM webhook_deliveries WHERE tenant_id = $1 AND endpoint_id = $2',
      [endpointId],
    );
    return { rows, total: count!.total };
  }

  /**
   * A succeeded or failed delivery back to pending, due now; the attempt count goes on.
   * A pending one (due, waiting for a retry or a slot, or in flight) already has its next
   * attempt coming: it is left as it is (`requeued` false). Undefined: not this endpoint's.
   */
  async requeue(
    db: TenantSql,
    endpointId: number,
    deliveryId: number,
  ): Promise<{ requeued: boolean } | undefined> {
    // The row lock makes concurrent calls take turns: only the first finds it finished.
    const row = await db.first<{ state: DeliveryState }>(
      `SELECT state FROM webhook_deliveries WHERE tenant_id = $1 AND endpoint_id = $2 AND id = $3
       FOR UPDATE`,
      [endpointId, deliveryId],
    );
    if (!row) return undefined;
    if (row.state === 'pending') return { requeued: false };
    await db.count(
      `UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = now()
       WHERE tenant_id = $1 AND id = $2`,
      [deliveryId],
    );
    return { requeued: true };
  }

  delivery(db: TenantSql, deliveryId: number): Promise<DeliveryRow | undefined> {
    return db.first<DeliveryRow>(
      `${DELIVERY_SELECT}
       WHERE d.tenant_id = $1 AND d.id = $2`,
      [deliveryId],
    );
  }
}
