import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type PgBoss from 'pg-boss';
import { BackgroundTransactions } from '../database/background-transactions.js';
import { AppConfig } from '../config/app-config.js';
import { toEventDto } from '../events/event.mapper.js';
import { JobQueue } from '../queue/job-queue.service.js';
import { SecretBox } from './secret-box.js';
import { WEBHOOK_QUEUE, type DeliveryJob, type HandedDelivery } from './webhook-delivery-job.js';
import {
  WebhookDeliveriesRepository,
  type DeliveryTarget,
} from './webhook-deliveries.repository.js';
import { WebhookDeliverySlots } from './webhook-delivery-slots.service.js';
import { WebhookOutcomeRecorder } from './webhook-outcome-recorder.service.js';
import { postWebhook, type SendOutcome } from './webhook-sender.js';
import { signatureHeader } from './webhook-signature.js';

/** Pollers that look for jobs every 2 s when idle; the others every 16 s. */
const SCOUTS = 8;
/** A poller hands itself woken deliveries this long, then leaves them to jobs. */
const HAND_OFF_MS = 15_000;

/**
 * Sends deliveries (Standard Webhooks) from the job queue. Each job first claims the
 * delivery's next attempt (webhook-delivery-slots: at most one attempt of a delivery in
 * flight, and the per-endpoint and per-tenant caps, across all processes); a delivery with no
 * free slot waits in line without a job. The HTTP request runs outside any transaction; its
 * outcome is recorded with the claim's release (webhook-outcome-recorder), which wakes the
 * next in line.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookDeliveryWorker');

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly slots: WebhookDeliverySlots,
    private readonly outcomes: WebhookOutcomeRecorder,
    private readonly transactions: BackgroundTransactions,
    private readonly queue: JobQueue,
    private readonly box: SecretBox,
    private readonly config: AppConfig,
  ) {}

  private readonly pollers: string[] = [];
  /** Shutting down: no more hand-offs, so the jobs in hand end soon (woken ones get jobs). */
  private stopping = false;

  /**
   * WEBHOOK_CONCURRENCY pollers of one job each: a receiver that takes the whole timeout
   * holds one poller, and the others go on. After a job a poller asks again at once. Idle,
   * the first SCOUTS poll every 2 s (a due retry, or a job woken by another process, waits
   * at most that long) and the rest every 16 s, so many pollers cost few queries; jobs
   * woken here (the dispatcher, a release) notify them all at once.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.config.WORKER === 'off') return;
    this.slots.onWoken(() => this.wake());
    for (let i = 0; i < this.config.WEBHOOK_CONCURRENCY; i++) {
      const id: string = await this.queue.boss.work<DeliveryJob>(
        WEBHOOK_QUEUE,
        { batchSize: 1, pollingIntervalSeconds: i < SCOUTS ? 2 : 16 },
        async ([job]: Array<PgBoss.Job<DeliveryJob>>) => {
          await this.attempt(job.data);
          this.queue.boss.notifyWorker(id);
        },
      );
      this.pollers.push(id);
    }
  }

  beforeApplicationShutdown(): void {
    this.stopping = true;
  }

  /** New jobs were committed (made or woken here): every local poller fetches now. */
  wake(): void {
    for (const id of this.pollers) this.queue.boss.notifyWorker(id);
  }

  /**
   * The job's attempt, then, for up to HAND_OFF_MS, the woken deliveries its releases hand
   * to this poller: a line drains without a job, a fetch and a claim transaction each.
   */
  async attempt(job: DeliveryJob): Promise<void> {
    const started = Date.now();
    let next: HandedDelivery | undefined = job;
    while (next) {
      next = await this.attemptOne(next, !this.stopping && Date.now() - started < HAND_OFF_MS);
    }
  }

  private async attemptOne(
    job: HandedDelivery,
    handOff: boolean,
  ): Promise<HandedDelivery | undefined> {
    const claimed = job.claimed ?? (await this.claim(job));
    if (!claimed) return undefined;
    const { attempt, target } = claimed;
    const outcome = await this.send(target);
    // Attempt n failed: the schedule's n-th delay, if it has one.
    const retryIn = outcome.ok ? null : (this.config.webhookRetryDelays[attempt - 1] ?? null);
    return this.outcomes.record(
      job,
      attempt,
      target.endpoint_id,
      {
        state: outcome.ok ? 'succeeded' : retryIn === null ? 'failed' : 'pending',
        statusCode: outcome.statusCode,
        error: outcome.ok ? null : outcome.error,
        retryIn,
      },
      handOff,
    );
  }

  /** Claims the job's attempt and reads its target; undefined when there is none to make. */
  private async claim({
    tenantId,
    deliveryId,
  }: DeliveryJob): Promise<{ attempt: number; target: DeliveryTarget } | undefined> {
    const claim = await this.slots.claim(tenantId, deliveryId);
    if (claim.kind !== 'claimed') return undefined;
    const target = await this.deliveries.target(this.transactions.db.tenant(tenantId), deliveryId);
    // Undefined: deleted with its endpoint meanwhile, nothing to record.
    return target && { attempt: claim.attempt, target };
  }

  private send(target: DeliveryTarget): Promise<SendOutcome> {
    const body = JSON.stringify(toEventDto(target.event));
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
}
