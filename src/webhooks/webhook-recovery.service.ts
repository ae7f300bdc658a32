import { Injectable } from '@nestjs/common';
import { Transactions } from '../common/transactions.js';
import { JobQueue } from '../queue/job-queue.service.js';
import { deliveryJob } from './webhook-delivery-job.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';

/** Past this, an attempt that is still due has lost its job (jobs run within seconds). */
const OVERDUE_SECONDS = 15 * 60;

/**
 * Part of the periodic maintenance (once per cluster): a pending delivery whose job is gone
 * gets a new one, so no delivery stays pending forever. A job that was only late runs too;
 * the attempt guard lets one of them record, at worst the receiver sees it twice.
 */
@Injectable()
export class WebhookRecovery {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly transactions: Transactions,
    private readonly queue: JobQueue,
  ) {}

  requeueOverdue(): Promise<number> {
    return this.transactions.run(async (m) => {
      const due = await this.deliveries.overdue(m, OVERDUE_SECONDS);
      await this.queue.insertInTransaction(
        m,
        due.map((job) => deliveryJob(job)),
      );
      return due.length;
    });
  }
}
