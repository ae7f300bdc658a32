import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { requireTenant } from '../common/tenant-scope.js';
import type { EventRow } from '../events/events.repository.js';
import { ENDPOINT_COLUMNS, type EndpointRow } from './webhook-endpoints.repository.js';

/** What an attempt needs: the delivery's state, its endpoint (with sealed secrets), its event. */
export interface DeliveryTarget {
  state: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  endpoint_id: number;
  app_id: number;
  url: string;
  /** The endpoint and its app are both active. */
  active: boolean;
  secret_ciphertext: Buffer;
  previous_secret_ciphertext: Buffer | null;
  event: Pick<EventRow, 'id' | 'type' | 'data' | 'created_at'>;
}

export interface AttemptRecord {
  state: 'pending' | 'succeeded' | 'failed';
  statusCode: number | null;
  error: string | null;
  /** Seconds until the next attempt, when there is one. */
  retryIn: number | null;
  /** Whether an attempt was made (false: the endpoint was paused, nothing was sent). */
  attempted: boolean;
}

/** Days of failures (no 2xx at all) after which an endpoint is disabled. */
export const DISABLE_AFTER_FAILING_DAYS = 5;
/**
 * A failure this long after the previous one starts a new streak: longer than any gap of
 * the retry schedule, so a retried delivery keeps its streak, while one failure, a quiet
 * week and another failure are not "five days of failures".
 */
const STREAK_GAP_HOURS = 24;

@Injectable()
export class WebhookDeliveriesRepository {
  async target(
    m: EntityManager,
    tenantId: number,
    deliveryId: number,
  ): Promise<DeliveryTarget | undefined> {
    requireTenant(tenantId);
    const rows: Array<
      Omit<DeliveryTarget, 'event'> & { event: DeliveryTarget['event'] & { created_at: string } }
    > = await m.query(
      `SELECT d.state, d.attempts, d.endpoint_id, ep.app_id, ep.url, ep.active AND a.active AS active,
           ep.secret_ciphertext,
           CASE WHEN ep.previous_secret_expires_at > now() THEN ep.previous_secret_ciphertext END
             AS previous_secret_ciphertext,
           json_build_object('id', e.id, 'type', e.type, 'data', e.data, 'created_at', e.created_at) AS event
         FROM webhook_deliveries d
         JOIN webhook_endpoints ep ON ep.tenant_id = d.tenant_id AND ep.id = d.endpoint_id
         JOIN apps a ON a.tenant_id = ep.tenant_id AND a.id = ep.app_id
         JOIN events e ON e.tenant_id = d.tenant_id AND e.seq = d.event_seq
         WHERE d.tenant_id = $1 AND d.id = $2`,
      [tenantId, deliveryId],
    );
    const row = rows[0];
    return row && { ...row, event: { ...row.event, created_at: new Date(row.event.created_at) } };
  }

  /**
   * Records the attempt numbered `attempt` (attempts made before it). False when the
   * delivery moved on meanwhile (a redelivery, a duplicate job): then nothing is written.
   */
  async record(
    m: EntityManager,
    tenantId: number,
    deliveryId: number,
    attempt: number,
    outcome: AttemptRecord,
  ): Promise<boolean> {
    requireTenant(tenantId);
    const rows: unknown[] = await m.query(
      `WITH recorded AS (
         UPDATE webhook_deliveries SET
           state = $4,
           attempts = attempts + CASE WHEN $8 THEN 1 ELSE 0 END,
           last_status_code = CASE WHEN $8 THEN $5 ELSE last_status_code END,
           last_error = left($6, 500),
           last_attempt_at = CASE WHEN $8 THEN now() ELSE last_attempt_at END,
           next_attempt_at = now() + make_interval(secs => $7)
         WHERE tenant_id = $1 AND id = $2 AND attempts = $3 AND state = 'pending'
         RETURNING 1)
       SELECT 1 FROM recorded`,
      [
        tenantId,
        deliveryId,
        attempt,
        outcome.state,
        outcome.statusCode,
        outcome.error,
        outcome.retryIn,
        outcome.attempted,
      ],
    );
    return rows.length > 0;
  }

  /**
   * Pending deliveries whose attempt is long overdue: their job was lost (pg-boss gave up on
   * a worker that kept crashing, or a row was restored). Marked due now; the caller enqueues.
   */
  async overdue(
    m: EntityManager,
    graceSeconds: number,
  ): Promise<Array<{ tenantId: number; deliveryId: number; attempt: number }>> {
    return m.query(
      `WITH due AS (
         UPDATE webhook_deliveries SET next_attempt_at = now()
         WHERE state = 'pending' AND next_attempt_at < now() - make_interval(secs => $1)
         RETURNING tenant_id, id, attempts)
       SELECT tenant_id AS "tenantId", id AS "deliveryId", attempts AS attempt FROM due`,
      [graceSeconds],
    );
  }

  /** A success ends the endpoint's failure streak. */
  async endpointSucceeded(m: EntityManager, tenantId: number, endpointId: number): Promise<void> {
    await m.query(
      `UPDATE webhook_endpoints SET failing_since = NULL
       WHERE tenant_id = $1 AND id = $2 AND failing_since IS NOT NULL`,
      [tenantId, endpointId],
    );
  }

  /**
   * A failure starts or extends the streak; past DISABLE_AFTER_FAILING_DAYS the endpoint is
   * deactivated. Returns the endpoint when this call disabled it.
   */
  async endpointFailed(
    m: EntityManager,
    tenantId: number,
    endpointId: number,
  ): Promise<EndpointRow | undefined> {
    requireTenant(tenantId);
    const streak: Array<{ expired: boolean }> = await m.query(
      `WITH streak AS (
         UPDATE webhook_endpoints SET
           failing_since = CASE
             WHEN failing_since IS NULL OR last_failure_at < now() - make_interval(hours => $4)
             THEN now() ELSE failing_since END,
           last_failure_at = now()
         WHERE tenant_id = $1 AND id = $2
         RETURNING failing_since <= now() - make_interval(days => $3) AS expired)
       SELECT * FROM streak`,
      [tenantId, endpointId, DISABLE_AFTER_FAILING_DAYS, STREAK_GAP_HOURS],
    );
    if (!streak[0]?.expired) return undefined;
    const rows: EndpointRow[] = await m.query(
      `WITH disabled AS (
         UPDATE webhook_endpoints SET active = false, updated_at = now()
         WHERE tenant_id = $1 AND id = $2 AND active
         RETURNING ${ENDPOINT_COLUMNS})
       SELECT * FROM disabled`,
      [tenantId, endpointId],
    );
    return rows[0];
  }
}
