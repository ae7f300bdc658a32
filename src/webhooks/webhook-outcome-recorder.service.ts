import { Injectable, Logger } from '@nestjs/common';
import { BackgroundTransactions } from '../database/background-transactions.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import { OutboxRepository } from '../outbox/outbox.repository.js';
import { JobQueue } from '../queue/job-queue.service.js';
import { deliveryJob, type DeliveryJob } from './webhook-delivery-job.js';
import { WebhookDeliverySlots } from './webhook-delivery-slots.service.js';
import {
  WebhookDeliveriesRepository,
  type AttemptRecord,
} from './webhook-deliveries.repository.js';
import { toEndpointDto } from './webhook-endpoint.mapper.js';

/**
 * Writes a claimed attempt's outcome in one transaction: the delivery's new state and the
 * claim's release, the next retry's job, the endpoint's failure streak (5 days of failures
 * disable it, with an `endpoint.disabled` event), and the wake of the next in line.
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
   * Returns, with `handOff`, a woken delivery of the same tenant for the caller to send next
   * (its slot is held for it; it gets no job).
   */
  record(
    { tenantId, deliveryId }: DeliveryJob,
    attempt: number,
    endpointId: number,
    outcome: AttemptRecord,
    handOff: boolean,
  ): Promise<DeliveryJob | undefined> {
    return this.transactions.run(async (db) => {
      const tenant = db.tenant(tenantId);
      if (await this.deliveries.record(tenant, deliveryId, attempt, outcome)) {
        if (outcome.retryIn !== null) {
          await this.queue.insertInTransaction(db, [
            deliveryJob({ tenantId, deliveryId }, { inSeconds: outcome.retryIn }),
          ]);
        }
        if (outcome.state !== 'succeeded') await this.failed(tenant, endpointId);
      }
      // Last, so the tenant's lock is held only for the wake and the commit.
      await this.slots.lock(db, tenantId);
      return this.slots.wake(db, tenantId, handOff);
    });
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
