import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import type { ParsedEvent } from '../events/event.mapper.js';
import { ENDPOINT_COLUMNS, type EndpointRow } from './webhook-endpoints.repository.js';

/** What an attempt needs: its endpoint (with sealed secrets) and its event. */
export interface DeliveryTarget {
  endpoint_id: number;
  app_id: number;
  url: string;
  secret_ciphertext: Buffer;
  previous_secret_ciphertext: Buffer | null;
  event: ParsedEvent;
}

/** The outcome of a claimed attempt. */
export interface AttemptRecord {
  state: 'pending' | 'succeeded' | 'failed';
  statusCode: number | null;
  error: string | null;
  /** Seconds until the next attempt, when there is one. */
  retryIn: number | null;
}

/** Days of failures (no 2xx at all) after which an endpoint is disabled. */
export const DISABLE_AFTER_FAILING_DAYS = 5;
/**
 * A failure this long after the previous one starts a new streak: longer than any gap of
 * the retry schedule, so a retried delivery keeps its streak, while one failure, a quiet
 * week and another failure are not "five days of failures".
 */
const STREAK_GAP_HOURS = 24;

/**
 * A DeliveryTarget's columns, from a delivery `d` (its endpoint_id), its endpoint `ep` and its
 * event `e`; the row goes through `toTarget`.
 */
export const TARGET_COLUMNS = `d.endpoint_id, ep.app_id, ep.url, ep.secret_ciphertext,
  CASE WHEN ep.previous_secret_expires_at > now() THEN ep.previous_secret_ciphertext END
    AS previous_secret_ciphertext,
  json_build_object('id', e.id, 'type', e.type, 'data', e.data, 'created_at', e.created_at) AS event`;

/** A row of TARGET_COLUMNS as the driver returns it. */
export type TargetRow = Omit<DeliveryTarget, 'event'> & {
  event: DeliveryTarget['event'] & { created_at: string };
};

export function toTarget(row: TargetRow): DeliveryTarget {
  return { ...row, event: { ...row.event, created_at: new Date(row.event.created_at) } };
}

/**
 * A claim with less of its lease left than this when its outcome is recorded hands its slot
 * on to nobody: by the time of the hand-off, another process may already count it free.
 */
const LIVE_MARGIN_SECONDS = 5;

/**
 * The CTEs `recorded` (attempt `attempt` of delivery `id`: its outcome, and its claim
 * released; RETURNING endpoint_id and `live`, whether the claim had more than
 * LIVE_MARGIN_SECONDS of its lease left; no row when the claim is no longer that attempt's)
 * and `streak_ended` (a success ends the endpoint's failure streak). The arguments are the
 * statement's placeholders or literals; `$1` is the tenant.
 * The endpoint's row is held (FOR KEY SHARE) before the delivery's is written: an endpoint
 * DELETE locks the endpoint and then, by its cascade, the deliveries, so an outcome that held
 * the delivery and then wrote the endpoint (the streak) deadlocked with it, and one of the
 * two was lost. Key share conflicts only with a delete: outcomes of one endpoint still run
 * side by side; a delete committed first leaves no claim to record.
 */
export function recordCtes(p: {
  id: string;
  attempt: string;
  state: string;
  statusCode: string;
  error: string;
  retryIn: string;
}): string {
  return `recorded AS (
         UPDATE webhook_deliveries d SET
           state = ${p.state},
           last_status_code = ${p.statusCode},
           last_error = left(${p.error}, 500),
           next_attempt_at = now() + make_interval(secs => ${p.retryIn}),
           claimed_until = NULL
         FROM (SELECT c.claimed_until AS until FROM webhook_deliveries c
               JOIN webhook_endpoints ep ON ep.tenant_id = $1 AND ep.id = c.endpoint_id
               WHERE c.tenant_id = $1 AND c.id = ${p.id}
               FOR KEY SHARE OF ep) claim
         WHERE d.tenant_id = $1 AND d.id = ${p.id} AND d.attempts = ${p.attempt}
           AND d.state = 'pending' AND d.claimed_until IS NOT NULL
         RETURNING d.endpoint_id,
           claim.until > now() + make_interval(secs => ${LIVE_MARGIN_SECONDS}) AS live),
       streak_ended AS (
         UPDATE webhook_endpoints ep SET failing_since = NULL FROM recorded
         WHERE ${p.state} = 'succeeded' AND ep.tenant_id = $1 AND ep.id = recorded.endpoint_id
           AND ep.failing_since IS NOT NULL
         RETURNING 1)`;
}

const RECORD = `WITH ${recordCtes({
  id: '$2',
  attempt: '$3',
  state: '$4',
  statusCode: '$5',
  error: '$6',
  retryIn: '$7',
})} SELECT live FROM recorded`;

/** Delivery attempts' SQL on the tenant path ($1 is the tenant). */
@Injectable()
export class WebhookDeliveriesRepository {
  async target(db: TenantSql, deliveryId: number): Promise<DeliveryTarget | undefined> {
    const row = await db.first<TargetRow>(
      `SELECT ${TARGET_COLUMNS}
         FROM webhook_deliveries d
         JOIN webhook_endpoints ep ON ep.tenant_id = d.tenant_id AND ep.id = d.endpoint_id
         JOIN events e ON e.tenant_id = d.tenant_id AND e.seq = d.event_seq
         WHERE d.tenant_id = $1 AND d.id = $2`,
      [deliveryId],
    );
    return row && toTarget(row);
  }

  /**
   * Records the outcome of attempt number `attempt` and releases its claim; a success also
   * ends the endpoint's failure streak. `live`: the claim had more than LIVE_MARGIN_SECONDS
   * left (its slot may be handed on). Undefined when the claim is no longer this attempt's
   * (its lease ran out and the attempt was made again): then nothing is written.
   */
  async record(
    db: TenantSql,
    deliveryId: number,
    attempt: number,
    outcome: AttemptRecord,
  ): Promise<{ live: boolean } | undefined> {
    return db.first<{ live: boolean }>(RECORD, [
      deliveryId,
      attempt,
      outcome.state,
      outcome.statusCode,
      outcome.error,
      outcome.retryIn,
    ]);
  }

  /**
   * A failure starts or extends the streak; past DISABLE_AFTER_FAILING_DAYS the endpoint is
   * deactivated. Returns the endpoint when this call disabled it.
   */
  async endpointFailed(db: TenantSql, endpointId: number): Promise<EndpointRow | undefined> {
    const streak = await db.first<{ expired: boolean }>(
      `UPDATE webhook_endpoints SET
         failing_since = CASE
           WHEN failing_since IS NULL OR last_failure_at < now() - make_interval(hours => $4)
           THEN now() ELSE failing_since END,
         last_failure_at = now()
       WHERE tenant_id = $1 AND id = $2
       RETURNING failing_since <= now() - make_interval(days => $3) AS expired`,
      [endpointId, DISABLE_AFTER_FAILING_DAYS, STREAK_GAP_HOURS],
    );
    if (!streak?.expired) return undefined;
    return db.first<EndpointRow>(
      `UPDATE webhook_endpoints SET active = false, updated_at = now()
       WHERE tenant_id = $1 AND id = $2 AND active
       RETURNING ${ENDPOINT_COLUMNS}`,
      [endpointId],
    );
  }
}
