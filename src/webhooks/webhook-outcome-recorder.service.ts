import { Injectable, Logger } from '@nestjs/common';
import { BackgroundTransactions } from '../database/background-transactions.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import { OutboxRepository } from '../outbox/outbox.repository.js';
import { JobQueue } from '../queue/job-queue.service.js';
import { deliveryJob, type DeliveryJob, type HandedDelivery } from './webhook-delivery-job.js';
import { WebhookDeliverySlots } from './webhook-delivery-slots.service.js';
import {
  WebhookDeliveriesRepository,
  type AttemptRecord,
} from './webhook-deliveries.repository.js';
import { toEndpointDto } from './webhook-endpoint.mapper.js';

/**
 * Writes a claimed attempt's outcome in one transaction: the delivery's new state and the
 * claim's release, the next retry's job, the endpoint's failure streak (5 days of failures
 * disable it, with an `endpoint.disabled` event); then the slot goes to the next in line
 * (webhook-delivery-slots: handed on, or a wake). A success on the hand-off path is one
 * statement that does both.
 */
@Injectable()
export class WebhookOutcomeRecorder {
  private readonly logger = new Logger('WebhookDeliveryWorker');

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly slots: WebhookDeliverySlots,
    private readonly transactions: BackgroundTransactions,
    private readonly queue: JobQueue,
    private readonly events: OutboxRepository,
  ) {}

  /**
   * Returns, with `handOff`, a delivery of the same tenant for the caller to send next: one
   * already claimed with the released slot (`claimed` set), or a woken one whose slot is held
   * for it (it gets no job).
   */
  async record(
    { tenantId, deliveryId }: DeliveryJob,
    attempt: number,
    endpointId: number,
    outcome: AttemptRecord,
    handOff: boolean,
  ): Promise<HandedDelivery | undefined> {
    if (handOff && outcome.state === 'succeeded') {
      return this.slots.succeedAndTransfer(
        tenantId,
        deliveryId,
        attempt,
        outcome.statusCode,
        endpointId,
      );
    }
    const { recorded, next } = await this.transactions.run(async (db) => {
      const tenant = db.tenant(tenantId);
      const release = await this.deliveries.record(tenant, deliveryId, attempt, outcome);
      if (!release) return { recorded: false };
      if (outcome.retryIn !== null) {
        await this.queue.insertInTransaction(db, [
          deliveryJob({ tenantId, deliveryId }, { inSeconds: outcome.retryIn }),
        ]);
      }
      if (outcome.state !== 'succeeded') await this.failed(tenant, endpointId);
      // Last, in the same unit: the endpoint's row is locked before a waiting delivery's (as
      // in the success statement), and nothing here waits for the tenant's slot lock.
      const handedOn =
        handOff && release.live
          ? await this.slots.transfer(db, tenantId, deliveryId, endpointId)
          : undefined;
      return { recorded: true, next: handedOn };
    });
    // A claim that was no longer this attempt's hands nothing on.
    return next ?? this.slots.releaseAlone(tenantId, handOff && recorded);
  }

  private async failed(tenant: TenantSql, endpointId: number): Promise<void> {
    const disabled = await this.deliveries.endpointFailed(tenant, endpointId);
    if (!disabled) return;
    this.logger.warn(
      { tenantId: tenant.tenantId, endpointId: disabled.id },
      'webhook endpoint disabled after 5 days of failures',
    );
    await this.events.append(tenant, [
      {
        appId: disabled.app_id,
        type: 'endpoint.disabled',
        data: { object: toEndpointDto(disabled) },
      },
    ]);
  }
}
