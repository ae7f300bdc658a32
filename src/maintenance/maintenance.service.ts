import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { BackgroundTransactions } from '../common/background-transactions.js';
import { AppConfig } from '../config/app-config.js';
import { JobQueue, MAINTENANCE_QUEUE } from '../queue/job-queue.service.js';
import { purgeExpiredEvents } from '../events/event-retention.js';
import { WebhookRecovery } from '../webhooks/webhook-recovery.service.js';
import { purgeExpiredRows, type PurgeCounts } from './expired-rows.js';

export { MAINTENANCE_QUEUE } from '../queue/job-queue.service.js';
/** Every five minutes (UTC), once per cluster. */
export const MAINTENANCE_CRON = '*/5 * * * *';

/**
 * Periodic work on pg-boss's schedule: the queue's cron monitor sends one job per slot for
 * the whole cluster and one worker takes it, where a `setInterval` would run in every
 * process. Processes with WORKER=off only keep the schedule.
 */
@Injectable()
export class Maintenance implements OnApplicationBootstrap {
  private readonly logger = new Logger('Maintenance');

  constructor(
    private readonly queue: JobQueue,
    private readonly transactions: BackgroundTransactions,
    private readonly config: AppConfig,
    private readonly webhooks: WebhookRecovery,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { boss } = this.queue;
    await boss.schedule(MAINTENANCE_QUEUE, MAINTENANCE_CRON);
    if (this.config.WORKER === 'off') return;
    await boss.work(MAINTENANCE_QUEUE, async () => {
      await this.purgeExpired();
    });
  }

  async purgeExpired(): Promise<PurgeCounts & { events: number; requeued_deliveries: number }> {
    const m = this.transactions.legacyManager;
    const counts = {
      ...(await purgeExpiredRows(m)),
      events: await purgeExpiredEvents(m, this.config.EVENT_RETENTION_DAYS),
      requeued_deliveries: await this.webhooks.requeueOverdue(),
    };
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    if (total > 0) this.logger.log({ purged: counts }, 'expired rows purged');
    return counts;
  }
}
