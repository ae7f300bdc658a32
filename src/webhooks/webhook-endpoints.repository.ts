import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { requireTenant } from '../common/tenant-scope.js';
import type { EventType } from '../outbox/event-types.js';
import type { DeliveryState } from './dto/webhook-endpoint.dto.js';

/** Whose endpoints: an app's own, within its tenant (another app's are "not found"). */
export interface EndpointOwner {
  tenantId: number;
  appId: number;
}

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

/** Webhook endpoint and delivery SQL: tenant and app first, in the caller's transaction. */
@Injectable()
export class WebhookEndpointsRepository {
  /** Serialises endpoint creation per app, so the per-app maximum holds under concurrency. */
  async lockApp(m: EntityManager, owner: EndpointOwner): Promise<number> {
    requireTenant(owner.tenantId);
    await m.query('SELECT pg_advisory_xact_lock(7240101, $1::int)', [owner.appId]);
    const rows: Array<{ n: number }> = await m.query(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE tenant_id = $1 AND app_id = $2',
      [owner.tenantId, owner.appId],
    );
    return rows[0].n;
  }

  async insert(
    m: EntityManager,
    owner: EndpointOwner,
    values: { url: string; eventTypes: EventType[]; description: string | null; secret: Buffer },
  ): Promise<EndpointRow> {
    const rows: EndpointRow[] = await m.query(
      `INSERT INTO webhook_endpoints (tenant_id, app_id, url, event_types, description, secret_ciphertext)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${ENDPOINT_COLUMNS}`,
      [
        owner.tenantId,
        owner.appId,
        values.url,
        values.eventTypes,
        values.description,
        values.secret,
      ],
    );
    return rows[0];
  }

  async list(m: EntityManager, owner: EndpointOwner): Promise<EndpointRow[]> {
    requireTenant(owner.tenantId);
    return m.query(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 AND app_id = $2 ORDER BY id`,
      [owner.tenantId, owner.appId],
    );
  }

  async find(m: EntityManager, owner: EndpointOwner, id: number): Promise<EndpointRow | undefined> {
    requireTenant(owner.tenantId);
    const rows: EndpointRow[] = await m.query(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 AND app_id = $2 AND id = $3`,
      [owner.tenantId, owner.appId, id],
    );
    return rows[0];
  }

  /** Applies the given fields; resuming or a new url also clears the failure streak. */
  async update(
    m: EntityManager,
    owner: EndpointOwner,
    id: number,
    change: EndpointChange,
  ): Promise<EndpointRow | undefined> {
    requireTenant(owner.tenantId);
    const rows: EndpointRow[] = await m.query(
      `WITH changed AS (
         UPDATE webhook_endpoints SET
           url = COALESCE($4, url),
           event_types = COALESCE($5, event_types),
           active = COALESCE($6, active),
           failing_since = CASE WHEN $6 OR $4::text IS NOT NULL THEN NULL ELSE failing_since END,
           description = CASE WHEN $7 THEN $8 ELSE description END,
           updated_at = now()
         WHERE tenant_id = $1 AND app_id = $2 AND id = $3
         RETURNING ${ENDPOINT_COLUMNS})
       SELECT * FROM changed`,
      [
        owner.tenantId,
        owner.appId,
        id,
        change.url ?? null,
        change.event_types ?? null,
        change.active ?? null,
        change.description !== undefined,
        change.description ?? null,
      ],
    );
    return rows[0];
  }

  async remove(m: EntityManager, owner: EndpointOwner, id: number): Promise<boolean> {
    requireTenant(owner.tenantId);
    const rows: unknown[] = await m.query(
      `WITH removed AS (
         DELETE FROM webhook_endpoints WHERE tenant_id = $1 AND app_id = $2 AND id = $3 RETURNING 1)
       SELECT 1 FROM removed`,
      [owner.tenantId, owner.appId, id],
    );
    return rows.length > 0;
  }

  /** The new secret signs from now on; the current one keeps signing until `overlapUntil`. */
  async rotateSecret(
    m: EntityManager,
    owner: EndpointOwner,
    id: number,
    secret: Buffer,
    overlapSeconds: number,
  ): Promise<EndpointRow | undefined> {
    requireTenant(owner.tenantId);
    const rows: EndpointRow[] = await m.query(
      `WITH rotated AS (
         UPDATE webhook_endpoints SET
           previous_secret_ciphertext = secret_ciphertext,
           previous_secret_expires_at = now() + make_interval(secs => $5),
           secret_ciphertext = $4,
           updated_at = now()
         WHERE tenant_id = $1 AND app_id = $2 AND id = $3
         RETURNING ${ENDPOINT_COLUMNS})
       SELECT * FROM rotated`,
      [owner.tenantId, owner.appId, id, secret, overlapSeconds],
    );
    return rows[0];
  }

  async deliveries(
    m: EntityManager,
    owner: EndpointOwner,
    endpointId: number,
    limit: number,
    offset: number,
  ): Promise<{ rows: DeliveryRow[]; total: number }> {
    requireTenant(owner.tenantId);
    // One after the other: an expensive request holds one connection at a time (the caps
    // on expensive requests count a place as a connection).
    const rows = await m.query<DeliveryRow[]>(
      `${DELIVERY_SELECT}
       WHERE d.tenant_id = $1 AND d.endpoint_id = $2
       ORDER BY d.id DESC LIMIT $3 OFFSET $4`,
      [owner.tenantId, endpointId, limit, offset],
    );
    const count = await m.query<Array<{ total: number }>>(
      `SELECT count(*)::int AS total FROM webhook_deliveries WHERE tenant_id = $1 AND endpoint_id = $2`,
      [owner.tenantId, endpointId],
    );
    return { rows, total: count[0].total };
  }

  /**
   * A succeeded or failed delivery back to pending, due now; the attempt count goes on.
   * A pending one (due, waiting for a retry or a slot, or in flight) already has its next
   * attempt coming: it is left as it is (`requeued` false). Undefined: not this endpoint's.
   */
  async requeue(
    m: EntityManager,
    tenantId: number,
    endpointId: number,
    deliveryId: number,
  ): Promise<{ requeued: boolean } | undefined> {
    requireTenant(tenantId);
    // The row lock makes concurrent calls take turns: only the first finds it finished.
    const rows: Array<{ state: DeliveryState }> = await m.query(
      `SELECT state FROM webhook_deliveries WHERE tenant_id = $1 AND endpoint_id = $2 AND id = $3
       FOR UPDATE`,
      [tenantId, endpointId, deliveryId],
    );
    if (!rows[0]) return undefined;
    if (rows[0].state === 'pending') return { requeued: false };
    await m.query(
      `UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = now()
       WHERE tenant_id = $1 AND id = $2`,
      [tenantId, deliveryId],
    );
    return { requeued: true };
  }

  async delivery(
    m: EntityManager,
    tenantId: number,
    deliveryId: number,
  ): Promise<DeliveryRow | undefined> {
    requireTenant(tenantId);
    const rows: DeliveryRow[] = await m.query(
      `${DELIVERY_SELECT}
       WHERE d.tenant_id = $1 AND d.id = $2`,
      [tenantId, deliveryId],
    );
    return rows[0];
  }
}
