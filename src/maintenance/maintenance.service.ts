import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { BackgroundTransactions } from '../database/background-transactions.js';
import { AppConfig } from '../config/app-config.js';
import { EventRetentionRepository } from '../events/event-retention.repository.js';
import { JobQueue, MAINTENANCE_QUEUE } from '../queue/job-queue.service.js';
import { WebhookRecovery } from '../webhooks/webhook-recovery.service.js';
import { AppClientsRepository } from '../auth/app-clients.repository.js';
import { ExpiredRowsRepository, type TenantPurgeCounts } from './expired-rows.repository.js';

export { MAINTENANCE_QUEUE } from '../queue/job-queue.service.js';
/** Every five minutes (UTC), once per cluster. */
export const MAINTENANCE_CRON = '*/5 * * * *';

/** Events removed per statement: each batch commits on its own (short transactions). */
const EVENT_PURGE_BATCH = 5000;

export type PurgeCounts = TenantPurgeCounts & {
  rate_limits: number;
  events: number;
  requeued_deliveries: number;
  /** Apps entered into the client directory (made by the release before it). */
  directory_backfilled: number;
};

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
    private readonly expiredRows: ExpiredRowsRepository,
    private readonly eventRetention: EventRetentionRepository,
    private readonly clients: AppClientsRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { boss } = this.queue;
    await boss.schedule(MAINTENANCE_QUEUE, MAINTENANCE_CRON);
    if (this.config.WORKER === 'off') return;
    await boss.work(MAINTENANCE_QUEUE, async () => {
      await this.purgeExpired();
    });
  }

  /** Each statement commits on its own (no unit of work): no long transaction. */
  async purgeExpired(): Promise<PurgeCounts> {
    const db = this.transactions.db;
    const counts = {
      ...(await this.expiredRows.purgeTenantRows(db.crossTenant('expired-rows-purge'))),
      rate_limits: await this.expiredRows.purgeRateLimits(db.shared()),
      events: await this.purgeExpiredEvents(),
      requeued_deliveries: await this.webhooks.requeueOverdue(),
      directory_backfilled: await this.clients.backfill(
        db.crossTenant('client-directory-backfill'),
      ),
    };
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    if (total > 0) this.logger.log({ purged: counts }, 'expired rows purged');
    return counts;
  }

  /**
   * Events older than the retention, in bounded batches: one long transaction would hold
   * back every feed and the webhook dispatcher (they serve only below the oldest open one).
   */
  private async purgeExpiredEvents(): Promise<number> {
    const retention = this.transactions.db.crossTenant('event-retention');
    let total = 0;
    for (;;) {
      const purged = await this.eventRetention.purgeBatch(
        retention,
        this.config.EVENT_RETENTION_DAYS,
        EVENT_PURGE_BATCH,
      );
      total += purged;
      if (purged < EVENT_PURGE_BATCH) return total;
    }
  }
}
