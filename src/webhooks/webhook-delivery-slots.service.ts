import { Injectable } from '@nestjs/common';
import { BackgroundTransactions } from '../database/background-transactions.js';
import { AppConfig } from '../config/app-config.js';
import type { Db } from '../database/sql/db.js';
import { JobQueue } from '../queue/job-queue.service.js';
import { deliveryJob, type DeliveryJob, type HandedDelivery } from './webhook-delivery-job.js';
import {
  WebhookDeliverySlotsRepository,
  type Claim,
  type SlotLimits,
  type TransferredAttempt,
} from './webhook-delivery-slots.repository.js';

/** Beyond the send's own timeout: time to record the outcome before the lease runs out. */
const LEASE_MARGIN_SECONDS = 15;
/** A woken delivery's job runs within seconds (it is fetched before any other job). */
const WAKE_SECONDS = 60;

/**
 * Attempt slots per endpoint (WEBHOOK_ENDPOINT_CONCURRENCY) and per tenant
 * (WEBHOOK_TENANT_CONCURRENCY), cluster-wide. New deliveries join their endpoint's line and
 * get a job only when woken into a free slot, so one tenant's burst never queues jobs ahead
 * of another's; an attempt is claimed before it is sent; a retry that finds no free slot
 * joins the line without holding a poller; a finished attempt hands its slot to the next in
 * its endpoint's line in the transaction that records it, or else a wake follows its commit
 * (a crash in between leaves the slot to the periodic recovery's wake).
 */
@Injectable()
export class WebhookDeliverySlots {
  constructor(
    private readonly slots: WebhookDeliverySlotsRepository,
    private readonly transactions: BackgroundTransactions,
    private readonly queue: JobQueue,
    private readonly config: AppConfig,
  ) {}

  /** Told once woken jobs are committed: this process's pollers fetch them at once. */
  private wokenListener: () => void = () => undefined;

  onWoken(listener: () => void): void {
    this.wokenListener = listener;
  }

  get limits(): SlotLimits {
    return {
      perEndpoint: this.config.WEBHOOK_ENDPOINT_CONCURRENCY,
      perTenant: this.config.WEBHOOK_TENANT_CONCURRENCY,
      leaseSeconds: this.config.WEBHOOK_TIMEOUT_SECONDS + LEASE_MARGIN_SECONDS,
      wakeSeconds: WAKE_SECONDS,
    };
  }

  /**
   * Claims the delivery's next attempt (a woken one takes the slot held for it), or parks it;
   * a slot held for a delivery that cannot use it (inactive endpoint, nothing left to send)
   * moves on at once.
   */
  async claim(tenantId: number, deliveryId: number): Promise<Claim> {
    const { leaseSeconds } = this.limits;
    const attempt = await this.slots.claimWoken(
      this.transactions.db.tenant(tenantId),
      deliveryId,
      leaseSeconds,
    );
    if (attempt !== undefined) return { kind: 'claimed', attempt };
    return this.transactions.run(async (db) => {
      const tenant = db.tenant(tenantId);
      await this.slots.lockTenant(tenant);
      const claim = await this.slots.claim(tenant, deliveryId, this.limits);
      // Parked, inactive, or nothing to claim (a stale job, a deleted endpoint): either way
      // the line may hold a delivery a lapsed or unused slot could take now.
      if (claim.kind !== 'claimed') await this.wake(db, tenantId);
      return claim;
    });
  }

  /**
   * Before `wake`, in a unit of work that freed slots or added to the tenant's line: the
   * tenant's other slot decisions wait for its commit, and the wake's snapshot sees theirs.
   */
  lock(db: Db, tenantId: number): Promise<void> {
    return this.slots.lockTenant(db.tenant(tenantId));
  }

  /**
   * After `lock` and the change, in the same unit: jobs for the next in the tenant's line.
   * With `handOff`, the first woken delivery gets no job: it is returned for the caller to
   * claim (if the caller dies first, its held slot lapses and it is woken again).
   */
  async wake(db: Db, tenantId: number, handOff = false): Promise<DeliveryJob | undefined> {
    const woken = await this.slots.wake(db.tenant(tenantId), this.limits);
    const kept = handOff ? woken[0] : undefined;
    await this.enqueue(db, kept ? woken.slice(1) : woken);
    return kept;
  }

  /**
   * In the unit that recorded an outcome (the claim of `releasedId` on `endpointId` released,
   * the endpoint's row written last): the slot goes to the first in the endpoint's line when
   * it can (the repository's `transfer`, no lock). Both commit together, so no wake ever sees
   * the slot free while the transfer counts it. Undefined: `releaseAlone` after the commit.
   */
  async transfer(
    db: Db,
    tenantId: number,
    releasedId: number,
    endpointId: number,
  ): Promise<HandedDelivery | undefined> {
    const next = await this.slots.transfer(
      db.tenant(tenantId),
      releasedId,
      endpointId,
      this.limits,
    );
    return next && handed(tenantId, next);
  }

  /**
   * The steady path of a busy endpoint, in one statement of its own: attempt `attempt`
   * recorded as a success and its slot handed to the next in the endpoint's line. No one
   * taken (or the claim was no longer this attempt's, or its lease nearly ran out):
   * `releaseAlone`.
   */
  async succeedAndTransfer(
    tenantId: number,
    deliveryId: number,
    attempt: number,
    statusCode: number | null,
    endpointId: number,
  ): Promise<HandedDelivery | undefined> {
    const { next } = await this.slots.succeedAndTransfer(
      this.transactions.db.tenant(tenantId),
      deliveryId,
      attempt,
      statusCode,
      endpointId,
      this.limits,
    );
    if (next) return handed(tenantId, next);
    return this.releaseAlone(tenantId, true);
  }

  /**
   * After a release has committed: `release` in a unit of its own, then `wakeLine` when it
   * asks. Its lock orders it against every wake; a crash between the two leaves a free slot
   * that the periodic recovery's wake fills.
   */
  async releaseAlone(tenantId: number, handOff: boolean): Promise<HandedDelivery | undefined> {
    const { handed: woken, wakeLater } = await this.transactions.run((db) =>
      this.release(db, tenantId, handOff),
    );
    return wakeLater ? this.wakeLine(tenantId, handOff) : woken;
  }

  /**
   * In a unit after a release no transfer took: wakes the tenant's line under the lock when
   * a wake could give someone a slot (`handOff` as in `wake`); else only holds the lock shared, so
   * releases of one tenant never queue behind each other. `wakeLater`: someone joined the
   * line before the shared lock was granted; call `wakeLine` once this unit has committed.
   */
  async release(
    db: Db,
    tenantId: number,
    handOff: boolean,
  ): Promise<{ handed?: HandedDelivery; wakeLater: boolean }> {
    const tenant = db.tenant(tenantId);
    if (await this.slots.lineWaiting(tenant, this.limits)) {
      await this.slots.lockTenant(tenant);
      return { handed: await this.wake(db, tenantId, handOff), wakeLater: false };
    }
    await this.slots.lockTenantShared(tenant);
    return { wakeLater: await this.slots.lineWaiting(tenant, this.limits) };
  }

  /** The tenant's line woken in a unit of its own (after `release` said `wakeLater`). */
  wakeLine(tenantId: number, handOff: boolean): Promise<HandedDelivery | undefined> {
    return this.transactions.run(async (db) => {
      await this.lock(db, tenantId);
      return this.wake(db, tenantId, handOff);
    });
  }

  /**
   * The dispatcher's batch: locks the slots of the tenants that got deliveries (every
   * tenant's batch, its cross-tenant path) and wakes their lines, in the batch's unit.
   */
  async wakeDispatched(db: Db, tenantIds: number[]): Promise<void> {
    const dispatch = db.crossTenant('webhook-dispatch');
    await this.slots.lockTenants(dispatch, tenantIds);
    await this.enqueue(db, await this.slots.wakeTenants(dispatch, tenantIds, this.limits));
  }

  private async enqueue(db: Db, woken: DeliveryJob[]): Promise<void> {
    await this.queue.insertInTransaction(
      db,
      woken.map((job) => deliveryJob(job, { woken: true })),
    );
    if (woken.length > 0) this.transactions.afterCommit(() => this.wokenListener());
  }
}

function handed(tenantId: number, next: TransferredAttempt): HandedDelivery {
  return {
    tenantId,
    deliveryId: next.deliveryId,
    claimed: { attempt: next.attempt, target: next.target },
  };
}
