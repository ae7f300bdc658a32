import { Injectable } from '@nestjs/common';
import { BackgroundTransactions } from '../database/background-transactions.js';
import { WebhookDeliverySlots } from './webhook-delivery-slots.service.js';
import { WebhookDeliverySlotsRepository } from './webhook-delivery-slots.repository.js';

/** Past this, an attempt that is still due has lost its job (jobs run within seconds). */
const OVERDUE_SECONDS = 15 * 60;

/**
 * Part of the periodic maintenance (once per cluster): no delivery stays pending forever.
 * An attempt whose lease ran out (its process died mid-send) and a due delivery whose job
 * was lost go in line at the place they fell due; then every tenant's line is woken as far
 * as its free slots go, which also covers slots freed without a wake (a lease that ran
 * out, a deleted endpoint) and woken jobs that never ran.
 */
@Injectable()
export class WebhookRecovery {
  constructor(
    private readonly repository: WebhookDeliverySlotsRepository,
    private readonly slots: WebhookDeliverySlots,
    private readonly transactions: BackgroundTransactions,
  ) {}

  /** Returns how many deliveries were put back in line. */
  async requeueOverdue(): Promise<number> {
    const recovery = this.transactions.db.crossTenant('webhook-recovery');
    const forgotten = await this.repository.lineUpForgotten(recovery, OVERDUE_SECONDS);
    // A unit of work per tenant: none waits for another's slot decisions.
    for (const tenantId of await this.repository.tenantsInLine(recovery)) {
      await this.transactions.run(async (db) => {
        await this.slots.lock(db, tenantId);
        await this.slots.wake(db, tenantId);
      });
    }
    return forgotten;
  }
}
