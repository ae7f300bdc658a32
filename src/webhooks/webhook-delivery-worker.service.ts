import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type PgBoss from 'pg-boss';
import type { EntityManager } from 'typeorm';
import { Transactions } from '../common/transactions.js';
import { AppConfig } from '../config/app-config.js';
import { toEventDto } from '../events/event.mapper.js';
import { EventLog } from '../events/event-log.js';
import { JobQueue } from '../queue/job-queue.service.js';
import { SecretBox } from './secret-box.js';
import { deliveryJob, WEBHOOK_QUEUE, type DeliveryJob } from './webhook-delivery-job.js';
import {
  WebhookDeliveriesRepository,
  type AttemptRecord,
  type DeliveryTarget,
} from './webhook-deliveries.repository.js';
import { WebhookDeliverySlots } from './webhook-delivery-slots.service.js';
import { toEndpointDto } from './webhook-endpoint.mapper.js';
import { postWebhook, type SendOutcome } from './webhook-sender.js';
import { signatureHeader } from './webhook-signature.js';

/**
 * Sends deliveries (Standard Webhooks) from the job queue. Each job first claims the
 * delivery's next attempt (webhook-delivery-slots: at most one attempt of a delivery in
 * flight, and the per-endpoint and per-tenant caps, across all processes); a delivery with no
 * free slot waits in line without a job. The HTTP request runs outside any transaction; its
 * outcome (success, the next retry of WEBHOOK_RETRY_SCHEDULE as a new job with the same
 * `webhook-id`, or `failed`) is recorded with the claim's release, which wakes the next in
 * line. An endpoint with no success for 5 days is disabled with an `endpoint.disabled` event.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('WebhookDeliveryWorker');

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly slots: WebhookDeliverySlots,
    private readonly transactions: Transactions,
    private readonly queue: JobQueue,
    private readonly box: SecretBox,
    private readonly events: EventLog,
    private readonly config: AppConfig,
  ) {}

  private readonly pollers: string[] = [];

  /**
   * WEBHOOK_CONCURRENCY pollers of one job each: a receiver that takes the whole timeout
   * holds one poller, and the others go on. After a job a poller asks again at once; idle
   * ones poll every 2 s (the dispatcher wakes them when it made deliveries here).
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.config.WORKER === 'off') return;
    this.slots.onWoken(() => this.wake());
    for (let i = 0; i < this.config.WEBHOOK_CONCURRENCY; i++) {
      const id: string = await this.queue.boss.work<DeliveryJob>(
        WEBHOOK_QUEUE,
        { batchSize: 1, pollingIntervalSeconds: 2 },
        async ([job]: Array<PgBoss.Job<DeliveryJob>>) => {
          await this.attempt(job.data);
          this.queue.boss.notifyWorker(id);
        },
      );
      this.pollers.push(id);
    }
  }

  /** New jobs were committed (made or woken here): every local poller fetches now. */
  wake(): void {
    for (const id of this.pollers) this.queue.boss.notifyWorker(id);
  }

  async attempt({ tenantId, deliveryId }: DeliveryJob): Promise<void> {
    const claim = await this.slots.claim(tenantId, deliveryId);
    if (claim.kind !== 'claimed') return;
    const target = await this.deliveries.target(this.transactions.manager, tenantId, deliveryId);
    if (!target) return; // deleted with its endpoint meanwhile: nothing left to record
    const outcome = await this.send(target);
    // Attempt n failed: the schedule's n-th delay, if it has one.
    const retryIn = outcome.ok ? null : (this.config.webhookRetryDelays[claim.attempt - 1] ?? null);
    await this.record({ tenantId, deliveryId }, claim.attempt, target, {
      state: outcome.ok ? 'succeeded' : retryIn === null ? 'failed' : 'pending',
      statusCode: outcome.statusCode,
      error: outcome.ok ? null : outcome.error,
      retryIn,
    });
  }

  private send(target: DeliveryTarget): Promise<SendOutcome> {
    const body = JSON.stringify(toEventDto({ ...target.event, seq: 0, txid: '0' }));
    const timestamp = Math.floor(Date.now() / 1000);
    let secrets: string[];
    try {
      secrets = [target.secret_ciphertext, target.previous_secret_ciphertext]
        .filter((sealed): sealed is Buffer => sealed !== null)
        .map((sealed) => this.box.open(sealed));
    } catch {
      // Another SECRET_PEPPER than the one that sealed it: nothing can be signed. Rotate.
      this.logger.error({ endpointId: target.endpoint_id }, 'webhook signing secret unreadable');
      return Promise.resolve({
        ok: false,
        statusCode: null,
        error: 'signing secret unreadable (SECRET_PEPPER changed?); rotate the secret',
      });
    }
    return postWebhook(
      target.url,
      {
        'webhook-id': target.event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, target.event.id, timestamp, body),
      },
      body,
      {
        allowHttp: this.config.WEBHOOK_ALLOW_HTTP,
        allowPrivateNetworks: this.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
        timeoutMs: this.config.WEBHOOK_TIMEOUT_SECONDS * 1000,
      },
    );
  }

  private async record(
    { tenantId, deliveryId }: DeliveryJob,
    attempt: number,
    target: DeliveryTarget,
    outcome: AttemptRecord,
  ): Promise<void> {
    await this.transactions.run(async (m) => {
      await this.slots.lock(m, [tenantId]);
      if (await this.deliveries.record(m, tenantId, deliveryId, attempt, outcome)) {
        if (outcome.retryIn !== null) {
          await this.queue.insertInTransaction(m, [
            deliveryJob({ tenantId, deliveryId }, { inSeconds: outcome.retryIn }),
          ]);
        }
        await this.endpointStreak(m, tenantId, target, outcome);
      }
      await this.slots.wake(m, [tenantId]);
    });
  }

  private async endpointStreak(
    m: EntityManager,
    tenantId: number,
    target: DeliveryTarget,
    outcome: AttemptRecord,
  ): Promise<void> {
    if (outcome.state === 'succeeded') {
      await this.deliveries.endpointSucceeded(m, tenantId, target.endpoint_id);
      return;
    }
    const disabled = await this.deliveries.endpointFailed(m, tenantId, target.endpoint_id);
    if (!disabled) return;
    this.logger.warn(
      { tenantId, endpointId: disabled.id },
      'webhook endpoint disabled after 5 days of failures',
    );
    await this.events.append(m, [
      {
        tenantId,
        appId: disabled.app_id,
        type: 'endpoint.disabled',
        data: { object: toEndpointDto(disabled) },
      },
    ]);
  }
}
