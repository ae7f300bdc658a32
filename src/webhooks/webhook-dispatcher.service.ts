import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { PeriodicRun } from '../common/periodic-run.js';
import { BackgroundTransactions } from '../database/background-transactions.js';
import { AppConfig } from '../config/app-config.js';
import { entitlementPairs } from './event-entitlements.js';
import { WebhookDeliverySlots } from './webhook-delivery-slots.service.js';
import { WebhookDispatchRepository } from './webhook-dispatch.repository.js';

/** Events turned into deliveries per transaction. */
const BATCH = 500;

/**
 * Follows the event log, in the feed's order and with its commit rule (only events of
 * transactions below the snapshot's xmin), from a position kept in `webhook_dispatch`: each
 * batch makes the deliveries of the matching active endpoints (in their endpoint's line),
 * wakes as many as the free slots take (webhook-delivery-slots) and moves the position in
 * one transaction, so a crash repeats a batch or loses nothing, and the
 * unique (endpoint, event) keeps a repeat from delivering twice. Only endpoints of active
 * apps entitled to the event type get one (event-entitlements.ts). Every worker process polls;
 * the row lock (SKIP LOCKED) lets one dispatch at a time and the others return at once.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookDispatcher');
  private periodic?: PeriodicRun;

  constructor(
    private readonly transactions: BackgroundTransactions,
    private readonly config: AppConfig,
    private readonly slots: WebhookDeliverySlots,
    private readonly dispatch: WebhookDispatchRepository,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.WORKER === 'off') return;
    this.periodic = new PeriodicRun(
      this.config.WEBHOOK_DISPATCH_INTERVAL_MS,
      () => this.dispatchAll(),
      (error) => this.logger.warn({ err: error }, 'webhook dispatch failed'),
    );
    this.periodic.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.periodic?.stop();
  }

  /** Dispatches until the log has nothing more to give now; returns the events passed. */
  async dispatchAll(): Promise<number> {
    if (!(await this.anythingNew())) return 0;
    let total = 0;
    for (;;) {
      const passed = await this.dispatchBatch();
      total += passed;
      if (passed < BATCH) return total;
    }
  }

  /** A look without locking the position: an idle poll writes nothing. */
  private async anythingNew(): Promise<boolean> {
    const db = this.transactions.db;
    const from = await this.dispatch.position(db.shared());
    return (
      from !== undefined && this.dispatch.anythingAfter(db.crossTenant('webhook-dispatch'), from)
    );
  }

  private dispatchBatch(): Promise<number> {
    return this.transactions.run(async (db) => {
      const from = await this.dispatch.holdPosition(db.shared());
      if (!from) return 0; // another process dispatches
      const batch = await this.dispatch.fanOut(
        db.crossTenant('webhook-dispatch'),
        from,
        BATCH,
        entitlementPairs(),
      );
      if (batch.last) await this.dispatch.movePosition(db.shared(), batch.last);
      if (batch.tenants.length > 0) await this.slots.wakeDispatched(db, batch.tenants);
      return batch.events;
    });
  }
}
