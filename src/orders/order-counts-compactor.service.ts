import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { PeriodicRun } from '../common/periodic-run.js';
import { BackgroundTransactions } from '../database/background-transactions.js';
import { OrderCountsRepository } from './order-counts.repository.js';

/** How often pending deltas are folded; a total reads at most this much of them per key. */
const COMPACT_INTERVAL_MS = 1_000;
/** Deltas folded per transaction, so a backlog is folded in short transactions. */
const BATCH = 20_000;

/**
 * Folds the order counters' deltas (order-counts.sql.ts), of every tenant, into their counts every second, in every
 * process; an advisory lock lets one do it at a time and the others return at once. Totals are
 * exact either way: this only keeps the deltas a total has to add up few.
 */
@Injectable()
export class OrderCountsCompactor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('OrderCountsCompactor');
  private readonly periodic = new PeriodicRun(
    COMPACT_INTERVAL_MS,
    () => this.compactAll(),
    (error) => this.logger.warn({ err: error }, 'order count compaction failed'),
  );

  constructor(
    private readonly transactions: BackgroundTransactions,
    private readonly counts: OrderCountsRepository,
  ) {}

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }

  /**
   * Folds until no batch is full; returns the deltas folded. While another compactor (this
   * process's own timer, or another process) holds the lock, it returns 0 at once, unless
   * `waitForLock`: then it waits for that one to commit and folds what is left, so nothing
   * pending before the call is left unfolded.
   */
  async compactAll({ waitForLock = false } = {}): Promise<number> {
    let total = 0;
    for (;;) {
      const folded = await this.transactions.run(async (db) => {
        if (!(await this.counts.lockCompaction(db.shared(), waitForLock))) return 0;
        return this.counts.compact(db.crossTenant('order-counts-compaction'), BATCH);
      });
      total += folded;
      if (folded < BATCH) return total;
    }
  }
}
