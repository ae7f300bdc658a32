import { Injectable } from '@nestjs/common';
import { BackgroundTransactions } from '../database/background-transactions.js';
import { AppConfig } from '../config/app-config.js';
import type { Db } from '../database/sql/db.js';
import { JobQueue } from '../queue/job-queue.service.js';
import { deliveryJob, type DeliveryJob } from './webhook-delivery-job.js';
import {
  WebhookDeliverySlotsRepository,
  type Claim,
  type SlotLimits,
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
 * joins the line without holding a poller; every transaction that frees a slot wakes the next.
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
