import { Injectable } from '@nestjs/common';
import type { CrossTenantSql } from '../database/sql/cross-tenant-sql.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import {
  recordCtes,
  TARGET_COLUMNS,
  toTarget,
  type DeliveryTarget,
  type TargetRow,
} from './webhook-deliveries.repository.js';

/** How many attempts may be in flight at once, and how long a claim or a wake holds a slot. */
export interface SlotLimits {
  perEndpoint: number;
  perTenant: number;
  /** An attempt's lease: past it, its process is presumed dead and the attempt is made again. */
  leaseSeconds: number;
  /** A woken delivery's slot is held this long for its job; then it can be woken again. */
  wakeSeconds: number;
}

/**
 * What a job found: `claimed` (attempt number `attempt` is this job's to send), `parked`
 * (no free slot: in line, without a job, until a finished attempt wakes it), `inactive`
 * (endpoint or app paused: failed without sending) or `none` (finished, in flight elsewhere,
 * not yet due, or gone: a stale or duplicate job).
 */
export type Claim = { kind: 'claimed'; attempt: number } | { kind: 'parked' | 'inactive' | 'none' };

/** Serialises the slot decisions of one tenant (claims, parking, releases, wakes). */
const TENANT_SLOTS_LOCK = 7_240_104;

/**
 * Wakes the deliveries in line that the free slots can take: per endpoint the first in the
 * order they fell due, as many as its free slots, then per tenant the first of those up to
 * its free slots. `tenants` is the statement's list of tenants (as `tenant_id`), from `$1`;
 * `$2`..`$4` are the per-tenant and per-endpoint slots and the seconds a wake holds one.
 * It runs after a wait for the tenants' lock, so on the statement's clock: the transaction's
 * `now()` (its start, before the wait) would count the slots that lapsed meanwhile as held.
 */
function wakeStatement(tenants: string): string {
  return `WITH tenants AS (${tenants}),
       taken AS (
         SELECT d.tenant_id, d.endpoint_id FROM webhook_deliveries d JOIN tenants USING (tenant_id)
         WHERE d.claimed_until > statement_timestamp() OR d.woken_until > statement_timestamp()),
       room AS (
         SELECT ep.tenant_id, ep.id AS endpoint_id, $3 - (
             SELECT count(*) FROM taken
             WHERE taken.tenant_id = ep.tenant_id AND taken.endpoint_id = ep.id) AS free
         FROM webhook_endpoints ep JOIN tenants USING (tenant_id)),
       candidates AS (
         SELECT room.tenant_id, c.id, c.next_attempt_at FROM room CROSS JOIN LATERAL (
           SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
           WHERE d.tenant_id = room.tenant_id AND d.endpoint_id = room.endpoint_id
             AND d.waiting_since IS NOT NULL AND d.state = 'pending'
             AND (d.woken_until IS NULL OR d.woken_until <= statement_timestamp())
           ORDER BY d.next_attempt_at, d.id LIMIT GREATEST(room.free, 0)) c),
       chosen AS (
         SELECT tenant_id, id FROM (
           SELECT tenant_id, id, row_number() OVER (
               PARTITION BY tenant_id ORDER BY next_attempt_at, id) AS place
           FROM candidates) ranked
         WHERE place <= $2 - (SELECT count(*) FROM taken WHERE taken.tenant_id = ranked.tenant_id)),
       woken AS (
         UPDATE webhook_deliveries d SET woken_until = statement_timestamp() + make_interval(secs => $4)
         FROM chosen WHERE d.tenant_id = chosen.tenant_id AND d.id = chosen.id
           -- Again on the row as it is when locked: a transfer (no lock) may have claimed it.
           AND d.waiting_since IS NOT NULL AND d.state = 'pending'
         RETURNING d.tenant_id, d.id)
       SELECT tenant_id AS "tenantId", id AS "deliveryId" FROM woken`;
}

const WAKE_TENANT = wakeStatement('SELECT $1::bigint AS tenant_id');
const WAKE_TENANTS = wakeStatement('SELECT DISTINCT unnest($1::bigint[]) AS tenant_id');

/**
 * The CTEs that hand the slot of delivery `released` (of endpoint `$2`) on (see `transfer`),
 * `gate` a condition the hand-off also needs; `$3`, `$4` and `perTenant` are the per-endpoint
 * slots, the lease seconds and the per-tenant slots. `handed` is the claimed delivery's id,
 * attempt and TARGET_COLUMNS (no row: none).
 */
function transferCtes(released: string, perTenant: string, gate: string): string {
  return `taken AS (
           -- Slots held by others. A hand-off only where the released slot is the last free
           -- one of a cap that binds (the busy steady state): with slack, a wake fills every
           -- free slot at once; over a cap (a lapsed claim given away, caps lowered since),
           -- the slot is given up.
           SELECT count(*) FILTER (WHERE t.endpoint_id = $2) AS endpoint, count(*) AS tenant
           FROM webhook_deliveries t
           WHERE t.tenant_id = $1 AND t.id <> ${released}
             AND (t.claimed_until > now() OR t.woken_until > now())),
         rival AS (
           -- The first in line of the tenant's other endpoints that have a free slot.
           SELECT first.next_attempt_at, first.id
           FROM webhook_endpoints ep CROSS JOIN LATERAL (
             SELECT o.next_attempt_at, o.id FROM webhook_deliveries o
             WHERE o.tenant_id = ep.tenant_id AND o.endpoint_id = ep.id
               AND o.waiting_since IS NOT NULL AND o.state = 'pending'
               AND (o.woken_until IS NULL OR o.woken_until <= now())
             ORDER BY o.next_attempt_at, o.id LIMIT 1) first
           WHERE ep.tenant_id = $1 AND ep.id <> $2 AND ep.active
             AND (SELECT count(*) FROM webhook_deliveries t
                  WHERE t.tenant_id = $1 AND t.endpoint_id = ep.id
                    AND (t.claimed_until > now() OR t.woken_until > now())) < $3
           ORDER BY first.next_attempt_at, first.id LIMIT 1),
         head AS (
           -- Locked only when it is to be claimed: a row held here and then a wait for the
           -- tenant's lock could deadlock with a wake that holds the lock and wants the row.
           SELECT d.id FROM webhook_deliveries d
           WHERE d.tenant_id = $1 AND d.endpoint_id = $2 AND d.waiting_since IS NOT NULL
             AND (d.next_attempt_at, d.id) < (
               COALESCE((SELECT next_attempt_at FROM rival), 'infinity'),
               COALESCE((SELECT id FROM rival), 9223372036854775807))
             AND d.state = 'pending' AND (d.woken_until IS NULL OR d.woken_until <= now())
             AND ${gate}
             AND (SELECT endpoint < $3 AND tenant < ${perTenant}
                    AND (endpoint = $3 - 1 OR tenant = ${perTenant} - 1) FROM taken)
             AND EXISTS (
               SELECT 1 FROM webhook_endpoints ep
               JOIN apps a ON a.tenant_id = ep.tenant_id AND a.id = ep.app_id AND a.active
               WHERE ep.tenant_id = $1 AND ep.id = $2 AND ep.active)
           ORDER BY d.next_attempt_at, d.id LIMIT 1
           FOR NO KEY UPDATE OF d SKIP LOCKED),
         claimed AS (
           UPDATE webhook_deliveries d SET
             attempts = d.attempts + 1,
             last_attempt_at = now(),
             claimed_until = now() + make_interval(secs => $4),
             waiting_since = NULL,
             woken_until = NULL
           FROM head WHERE d.tenant_id = $1 AND d.id = head.id
           RETURNING d.id, d.attempts, d.endpoint_id, d.event_seq),
         handed AS (
           SELECT d.id AS "deliveryId", d.attempts AS attempt, ${TARGET_COLUMNS}
           FROM claimed d
           JOIN webhook_endpoints ep ON ep.tenant_id = $1 AND ep.id = d.endpoint_id
           JOIN events e ON e.tenant_id = $1 AND e.seq = d.event_seq)`;
}

/** `$5` the released delivery, `$6` the per-tenant slots. */
const TRANSFER = `WITH ${transferCtes('$5', '$6', 'true')} SELECT * FROM handed`;

/**
 * A success recorded (attempt `$6` of delivery `$5`, status `$7`) and its slot handed on, in
 * one statement: the steady path of a busy endpoint costs one round trip and one commit.
 * `$8` is the per-tenant slots. The gate reads `streak_ended` so that the endpoint's row is
 * locked before any waiting delivery's (the order a failure's outcome takes them in).
 */
const SUCCEED_AND_TRANSFER = `WITH ${recordCtes({
  id: '$5',
  attempt: '$6',
  state: `'succeeded'`,
  statusCode: '$7',
  error: 'NULL::text',
  retryIn: 'NULL::float8',
})}, ${transferCtes(
  '$5',
  '$8',
  'EXISTS (SELECT 1 FROM recorded WHERE live) AND (SELECT count(*) FROM streak_ended) >= 0',
)}
  SELECT EXISTS (SELECT 1 FROM recorded) AS recorded, handed.*
  FROM (SELECT 1) AS one LEFT JOIN handed ON true`;

/** The advisory lock key of a tenant's slots, from `$1` (a tenant id). */
const LOCK_TENANT = `SELECT pg_advisory_xact_lock(${TENANT_SLOTS_LOCK}, ($1::bigint % 2147483647)::int)`;
const LOCK_TENANT_SHARED = `SELECT pg_advisory_xact_lock_shared(${TENANT_SLOTS_LOCK}, ($1::bigint % 2147483647)::int)`;

/** An attempt claimed by a transfer, with what sending it needs. */
export interface TransferredAttempt {
  deliveryId: number;
  attempt: number;
  target: DeliveryTarget;
}

export interface WokenDelivery {
  tenantId: number;
  deliveryId: number;
}

/**
 * Attempt slots in PostgreSQL, so the caps hold across every process. Every statement here
 * that decides about slots runs after a lock of its tenants in the same transaction: one
 * decision per tenant at a time, each on a snapshot taken after the previous one committed.
 * Two need none, as they change no count (a held slot becomes an attempt: claimWoken,
 * transfer); a release that wakes nobody holds the lock shared (lockTenantShared).
 * A job knows its tenant (the tenant path); the dispatcher's batch spans tenants (its
 * cross-tenant path), and so does the recovery's sweep.
 */
@Injectable()
export class WebhookDeliverySlotsRepository {
  /** Serialises the tenant's slot decisions until the transaction ends. */
  async lockTenant(db: TenantSql): Promise<void> {
    await db.rows(LOCK_TENANT);
  }

  /**
   * The tenant's lock in shared mode, for a release that wakes nobody: releases go side by
   * side, while every decision that may count the released slot (the exclusive lock) waits
   * for their commit, or they wait for its commit and see what it put in line.
   */
  async lockTenantShared(db: TenantSql): Promise<void> {
    await db.rows(LOCK_TENANT_SHARED);
  }

  /**
   * Whether a wake could give the tenant's free slots to someone: a delivery in line that no
   * slot is held for, in an endpoint with a free slot, while the tenant has one. A plain read
   * (it locks nothing, so it holds up no transfer, wake or redelivery), on the statement's
   * clock: after a wait for the lock, the transaction's `now()` would count lapsed slots.
   */
  async lineWaiting(db: TenantSql, limits: SlotLimits): Promise<boolean> {
    const rows = await db.rows(
      `SELECT 1 FROM webhook_endpoints ep
       WHERE ep.tenant_id = $1
         AND EXISTS (
           SELECT 1 FROM webhook_deliveries d
           WHERE d.tenant_id = $1 AND d.endpoint_id = ep.id AND d.waiting_since IS NOT NULL
             AND d.state = 'pending' AND (d.woken_until IS NULL OR d.woken_until <= statement_timestamp()))
         AND (SELECT count(*) FROM webhook_deliveries t
              WHERE t.tenant_id = $1 AND t.endpoint_id = ep.id
                AND (t.claimed_until > statement_timestamp() OR t.woken_until > statement_timestamp())) < $2
         AND (SELECT count(*) FROM webhook_deliveries t
              WHERE t.tenant_id = $1
                AND (t.claimed_until > statement_timestamp() OR t.woken_until > statement_timestamp())) < $3
       LIMIT 1`,
      [limits.perEndpoint, limits.perTenant],
    );
    return rows.length > 0;
  }

  /** The same for several tenants, in ascending order: holders of several cannot deadlock. */
  async lockTenants(db: CrossTenantSql, tenantIds: number[]): Promise<void> {
    await db.rows(
      `SELECT pg_advisory_xact_lock(${TENANT_SLOTS_LOCK}, (t % 2147483647)::int)
       FROM (SELECT DISTINCT unnest($1::bigint[]) AS t ORDER BY 1) sorted`,
      [tenantIds],
    );
  }

  /**
   * Claims the attempt of a woken delivery whose slot is still held for it (and whose endpoint
   * and app are active). The held slot becomes the attempt's in the same row: no slot count
   * changes, so no lock is needed. Undefined: not so; `claim` decides under the lock.
   */
  async claimWoken(
    db: TenantSql,
    deliveryId: number,
    leaseSeconds: number,
  ): Promise<number | undefined> {
    const row = await db.first<{ attempts: number }>(
      `UPDATE webhook_deliveries d SET
         attempts = d.attempts + 1,
         last_attempt_at = now(),
         claimed_until = now() + make_interval(secs => $3),
         waiting_since = NULL,
         woken_until = NULL
       FROM webhook_endpoints ep, apps a
       WHERE d.tenant_id = $1 AND d.id = $2 AND d.state = 'pending' AND d.woken_until > now()
         AND ep.tenant_id = d.tenant_id AND ep.id = d.endpoint_id AND ep.active
         AND a.tenant_id = ep.tenant_id AND a.id = ep.app_id AND a.active
       RETURNING d.attempts`,
      [deliveryId, leaseSeconds],
    );
    return row?.attempts;
  }

  /**
   * Hands the slot of an attempt just released on `endpointId` to the first in that endpoint's
   * line, claiming its next attempt and reading its target in one statement: one slot freed
   * and one taken, of the same endpoint and tenant, so no count changes and no lock is needed
   * (as claimWoken).
   * Only when the wake would have chosen it: no other endpoint of the tenant with a free slot
   * has one in line that fell due earlier; else undefined, and the caller wakes under the lock.
   * A wake running meanwhile may have counted the released slot as taken: that slot stays
   * free until the next wake (the line keeps moving through this one).
   */
  async transfer(
    db: TenantSql,
    releasedId: number,
    endpointId: number,
    limits: SlotLimits,
  ): Promise<TransferredAttempt | undefined> {
    const row = await db.first<TargetRow & { deliveryId: number; attempt: number }>(TRANSFER, [
      endpointId,
      limits.perEndpoint,
      limits.leaseSeconds,
      releasedId,
      limits.perTenant,
    ]);
    return row && { deliveryId: row.deliveryId, attempt: row.attempt, target: toTarget(row) };
  }

  /**
   * Records attempt `attempt` of `deliveryId` (on `endpointId`) as a success, releasing its
   * claim, and hands the slot on as `transfer` does, in one statement (autocommit).
   * `recorded` false: the claim was no longer this attempt's (nothing written, nothing handed).
   * A claim with little of its lease left is recorded and hands nothing on (LIVE_MARGIN_SECONDS).
   */
  async succeedAndTransfer(
    db: TenantSql,
    deliveryId: number,
    attempt: number,
    statusCode: number | null,
    endpointId: number,
    limits: SlotLimits,
  ): Promise<{ recorded: boolean; next?: TransferredAttempt }> {
    const row = (await db.first<
      { recorded: boolean } & (TargetRow & { deliveryId: number; attempt: number })
    >(SUCCEED_AND_TRANSFER, [
      endpointId,
      limits.perEndpoint,
      limits.leaseSeconds,
      deliveryId,
      attempt,
      statusCode,
      limits.perTenant,
    ]))!;
    if (row.deliveryId === null) return { recorded: row.recorded };
    return {
      recorded: true,
      next: { deliveryId: row.deliveryId, attempt: row.attempt, target: toTarget(row) },
    };
  }

  /**
   * Claims the delivery's next attempt when it is pending, due and not in flight, and a slot
   * is free (slots held by others: attempts in flight and woken deliveries); else parks it.
   * A claim counts the attempt at once: every POST made is in `attempts`, even a lost one.
   */
  async claim(db: TenantSql, deliveryId: number, limits: SlotLimits): Promise<Claim> {
    const row = await db.first<{ kind: 'claimed' | 'parked' | 'inactive'; attempts: number }>(
      `WITH me AS (
           SELECT d.id, d.endpoint_id, ep.active AND a.active AS active
           FROM webhook_deliveries d
           JOIN webhook_endpoints ep ON ep.tenant_id = d.tenant_id AND ep.id = d.endpoint_id
           JOIN apps a ON a.tenant_id = ep.tenant_id AND a.id = ep.app_id
           WHERE d.tenant_id = $1 AND d.id = $2 AND d.state = 'pending'
             AND d.next_attempt_at <= now()
             AND (d.claimed_until IS NULL OR d.claimed_until <= now())),
         taken AS (
           SELECT t.endpoint_id FROM webhook_deliveries t
           WHERE t.tenant_id = $1 AND t.id <> $2
             AND (t.claimed_until > now() OR t.woken_until > now())),
         verdict AS (
           SELECT me.id, CASE
             WHEN NOT me.active THEN 'inactive'
             WHEN (SELECT count(*) FROM taken) < $3
              AND (SELECT count(*) FROM taken WHERE taken.endpoint_id = me.endpoint_id) < $4
             THEN 'claimed'
             ELSE 'parked' END AS kind
           FROM me),
         decided AS (
           UPDATE webhook_deliveries d SET
             state = CASE WHEN v.kind = 'inactive' THEN 'failed' ELSE d.state END,
             last_error = CASE WHEN v.kind = 'inactive' THEN 'endpoint or app is not active'
               ELSE d.last_error END,
             next_attempt_at = CASE WHEN v.kind = 'inactive' THEN NULL ELSE d.next_attempt_at END,
             attempts = d.attempts + CASE WHEN v.kind = 'claimed' THEN 1 ELSE 0 END,
             last_attempt_at = CASE WHEN v.kind = 'claimed' THEN now() ELSE d.last_attempt_at END,
             claimed_until = CASE WHEN v.kind = 'claimed' THEN now() + make_interval(secs => $5) END,
             waiting_since = CASE WHEN v.kind = 'parked' THEN COALESCE(d.waiting_since, now()) END,
             woken_until = NULL
           FROM verdict v WHERE d.tenant_id = $1 AND d.id = v.id
             -- Again on the row as it is when locked: \`me\` read the statement's snapshot, and a
             -- claim by a woken job or an outcome may have committed since (READ COMMITTED
             -- re-checks only this WHERE), which would make two attempts in flight.
             AND d.state = 'pending' AND d.next_attempt_at <= now()
             AND (d.claimed_until IS NULL OR d.claimed_until <= now())
           RETURNING v.kind, d.attempts)
         SELECT * FROM decided`,
      [deliveryId, limits.perTenant, limits.perEndpoint, limits.leaseSeconds],
    );
    if (!row) return { kind: 'none' };
    return row.kind === 'claimed' ? { kind: 'claimed', attempt: row.attempts } : { kind: row.kind };
  }

  /** Wakes the tenant's line as far as its free slots go (see wakeStatement); after the lock. */
  wake(db: TenantSql, limits: SlotLimits): Promise<WokenDelivery[]> {
    return db.rows<WokenDelivery>(WAKE_TENANT, [
      limits.perTenant,
      limits.perEndpoint,
      limits.wakeSeconds,
    ]);
  }

  /** The same for the lines of several tenants in one statement; after `lockTenants`. */
  wakeTenants(
    db: CrossTenantSql,
    tenantIds: number[],
    limits: SlotLimits,
  ): Promise<WokenDelivery[]> {
    return db.rows<WokenDelivery>(WAKE_TENANTS, [
      tenantIds,
      limits.perTenant,
      limits.perEndpoint,
      limits.wakeSeconds,
    ]);
  }

  /**
   * Every tenant, for the periodic recovery: puts in line the pending deliveries nobody will
   * send (an attempt whose lease ran out, its process dead; a job long overdue, lost), in the
   * place they fell due. Returns how many; `tenantsInLine` then wakes them.
   */
  async lineUpForgotten(db: CrossTenantSql, overdueSeconds: number): Promise<number> {
    const expired = await db.count(
      `UPDATE webhook_deliveries SET claimed_until = NULL, waiting_since = now()
       WHERE claimed_until <= now() AND state = 'pending'`,
    );
    const lost = await db.count(
      `UPDATE webhook_deliveries SET waiting_since = now()
       WHERE state = 'pending' AND next_attempt_at < now() - make_interval(secs => $1)
         AND waiting_since IS NULL AND claimed_until IS NULL`,
      [overdueSeconds],
    );
    return expired + lost;
  }

  /** Every tenant, for the periodic recovery: the tenants with deliveries in line. */
  async tenantsInLine(db: CrossTenantSql): Promise<number[]> {
    const rows = await db.rows<{ tenant_id: number }>(
      'SELECT DISTINCT tenant_id FROM webhook_deliveries WHERE waiting_since IS NOT NULL',
    );
    return rows.map((r) => r.tenant_id);
  }
}
