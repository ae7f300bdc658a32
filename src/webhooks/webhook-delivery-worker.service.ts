import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type PgBoss from 'pg-boss';
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
import { toEndpointDto } from './webhook-endpoint.mapper.js';
import { postWebhook, type SendOutcome } from './webhook-sender.js';
import { signatureHeader } from './webhook-signature.js';

/**
 * Sends deliveries (Standard Webhooks) from the job queue and records each attempt: success,
 * the next retry of WEBHOOK_RETRY_SCHEDULE (a new job, same `webhook-id`), or `failed`. An
 * endpoint with no success for 5 days is disabled with an `endpoint.disabled` event. The
 * HTTP request runs outside any transaction; the outcome is written only if the delivery is
 * still at the attempt this job was for, so stale or duplicate jobs change nothing.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('WebhookDeliveryWorker');

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
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

  /** New jobs were committed: every local poller fetches now instead of at its next poll. */
  wake(): void {
    for (const id of this.pollers) this.queue.boss.notifyWorker(id);
  }

  async attempt(job: DeliveryJob): Promise<void> {
    const target = await this.deliveries.target(
      this.transactions.manager,
      job.tenantId,
      job.deliveryId,
    );
    if (!target || target.state !== 'pending' || target.attempts !== job.attempt) return;
    if (!target.active) {
      await this.record(job, target, {
        state: 'failed',
        statusCode: null,
        error: 'endpoint or app is not active',
        retryIn: null,
        attempted: false,
      });
      return;
    }
    const outcome = await this.send(target);
    const retryIn = outcome.ok ? null : (this.config.webhookRetryDelays[job.attempt] ?? null);
    await this.record(job, target, {
      state: outcome.ok ? 'succeeded' : retryIn === null ? 'failed' : 'pending',
      statusCode: outcome.statusCode,
      error: outcome.ok ? null : outcome.error,
      retryIn,
      attempted: true,
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
    job: DeliveryJob,
    target: DeliveryTarget,
    outcome: AttemptRecord,
  ): Promise<void> {
    await this.transactions.run(async (m) => {
      const { tenantId, deliveryId } = job;
      if (!(await this.deliveries.record(m, tenantId, deliveryId, job.attempt, outcome))) return;
      if (outcome.retryIn !== null) {
        await this.queue.insertInTransaction(m, [
          deliveryJob({ tenantId, deliveryId, attempt: job.attempt + 1 }, outcome.retryIn),
        ]);
      }
      if (!outcome.attempted) return;
      if (outcome.state === 'succeeded') {
        await this.deliveries.endpointSucceeded(m, tenantId, target.endpoint_id);
        return;
      }
      const disabled = await this.deliveries.endpointFailed(m, tenantId, target.endpoint_id);
      if (disabled) {
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
    });
  }
}
