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
    const { handed, wakeLater } = await this.transactions.run(async (db) => {
      const tenant = db.tenant(tenantId);
      if (await this.deliveries.record(tenant, deliveryId, attempt, outcome)) {
        if (outcome.retryIn !== null) {
          await this.queue.insertInTransaction(db, [
            deliveryJob({ tenantId, deliveryId }, { inSeconds: outcome.retryIn }),
          ]);
        }
        if (outcome.state !== 'succeeded') await this.failed(tenant, endpointId);
      }
      // The released slot goes straight to the next in the endpoint's line when it can (no
      // lock: the steady path of a busy endpoint); else the tenant's line is woken. Last, so
      // the tenant's lock is held only for the wake and the commit.
      const next = handOff ? await this.slots.transfer(db, tenantId, endpointId) : undefined;
      return next ? { handed: next, wakeLater: false } : this.slots.release(db, tenantId, handOff);
    });
    return wakeLater ? this.slots.wakeLine(tenantId, handOff) : handed;
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
