import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { BackgroundTransactions } from '../database/background-transactions.js';
import { rateLimited, rateLimitHeaders, type RateLimitRule } from './rate-limit-rule.js';
import { RateLimitsRepository } from './rate-limits.repository.js';

/** How often each instance adds its hits to the shared counters and reads the totals back. */
export const SYNC_INTERVAL_MS = 500;

interface WindowCounter {
  rule: RateLimitRule;
  /** Epoch ms when this fixed window ends; every instance computes the same boundaries. */
  windowEnd: number;
  /** Hits of every instance as PostgreSQL last reported them (ours included). */
  shared: number;
  /** Hits admitted here since the last report. */
  unsynced: number;
}

/**
 * Fixed-window counters for the hot path (the per-token request rate): decided in memory,
 * O(1) per request and no round trip, and reconciled through PostgreSQL every
 * SYNC_INTERVAL_MS, so the limit holds across instances.
 *
 * Over-admission bound: between two syncs an instance does not see the others' new hits,
 * so with N instances a window admits at most the limit plus what the other N − 1 admit in
 * one sync interval (at worst N × limit when all start a fresh window within one interval).
 */
@Injectable()
export class SyncedRateLimiter implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('SyncedRateLimiter');
  private readonly counters = new Map<string, WindowCounter>();
  private timer?: NodeJS.Timeout;
  private syncing?: Promise<void>;

  constructor(
    // The background pool: a flood of requests must not keep the limits from syncing.
    private readonly background: BackgroundTransactions,
    private readonly rateLimits: RateLimitsRepository,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.tick(), SYNC_INTERVAL_MS);
    this.timer.unref();
  }

  /** Reports the last hits while the pool is still open (it closes at application shutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sync();
  }

  /** Counts one request against `key`; throws 429 beyond the limit. Returns RateLimit headers. */
  hit(rule: RateLimitRule, key: string, now = Date.now()): Record<string, string> {
    const windowMs = rule.windowSeconds * 1000;
    const windowEnd = (Math.floor(now / windowMs) + 1) * windowMs;
    const id = `${rule.policy}:${key}:${windowEnd}`;
    let counter = this.counters.get(id);
    if (!counter) {
      counter = { rule, windowEnd, shared: 0, unsynced: 0 };
      this.counters.set(id, counter);
    }
    const resetSeconds = Math.ceil((windowEnd - now) / 1000);
    const used = counter.shared + counter.unsynced;
    if (used >= rule.limit) throw rateLimited(rule, resetSeconds);
    counter.unsynced++;
    return rateLimitHeaders(rule, rule.limit - used - 1, resetSeconds);
  }

  /** Adds this instance's new hits to the shared rows and reads every live total back, in one statement. */
  sync(): Promise<void> {
    // After the one in flight, if any: its snapshot may predate what the caller waits for.
    const run = (this.syncing ?? Promise.resolve()).then(() => this.flush());
    const tracked: Promise<void> = run.finally(() => {
      if (this.syncing === tracked) this.syncing = undefined;
    });
    this.syncing = tracked;
    return tracked;
  }

  /** The timer's turn: skipped while a sync is still running, so slow rounds never pile up. */
  private tick(): void {
    if (!this.syncing) void this.sync();
  }

  private async flush(): Promise<void> {
    const now = Date.now();
    const hit: Array<[string, WindowCounter, number]> = [];
    const idle: Array<[string, WindowCounter]> = [];
    for (const [id, counter] of this.counters) {
      if (counter.windowEnd <= now && counter.unsynced === 0) this.counters.delete(id);
      else if (counter.unsynced > 0) hit.push([id, counter, counter.unsynced]);
      else idle.push([id, counter]);
    }
    if (hit.length === 0 && idle.length === 0) return;
    // Sorted, so that two instances upserting the same keys lock them in the same order.
    hit.sort(([a], [b]) => (a < b ? -1 : 1));
    try {
      // New hits are added (one row write per key with hits); windows without new hits here
      // are only read, to learn the other instances' hits.
      const rows = await this.rateLimits.addAndRead(
        this.background.db.shared(),
        hit.map(([id, counter, points]) => ({ key: id, points, expire: counter.windowEnd })),
        idle.map(([id]) => id),
      );
      const totals = new Map(rows.map((r) => [r.key, r.points]));
      for (const [id, counter, sent] of hit) {
        counter.unsynced -= sent;
        counter.shared = Math.max(counter.shared + sent, totals.get(id) ?? 0);
      }
      for (const [id, counter] of idle) {
        counter.shared = Math.max(counter.shared, totals.get(id) ?? 0);
      }
    } catch (error) {
      // Kept for the next round: the limit still holds in this process meanwhile.
      this.logger.warn({ err: error }, 'rate-limit sync failed; retrying');
    }
  }
}
