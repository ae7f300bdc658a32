import { Injectable } from '@nestjs/common';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DataSource } from 'typeorm';
import {
  counterKey,
  rateLimited,
  rateLimitHeaders,
  type RateLimitRule,
} from './rate-limit-rule.js';

/**
 * Exact limits shared by every instance: one atomic upsert per attempt on a fixed-window
 * counter in PostgreSQL (rate-limiter-flexible). For the limits that guard costly or
 * sensitive work (logins, registrations, failed client authentications), where one round
 * trip is cheap next to the work and over-admission is not acceptable.
 *
 * `reserve` counts before the work is done: a burst in flight cannot slip past the check
 * (check-then-count would let every concurrent attempt through). Attempts that turn out not
 * to count (a successful login) are handed back with `refund`.
 */
@Injectable()
export class ExactRateLimiter {
  private readonly stores = new Map<string, RateLimiterPostgres>();

  constructor(private readonly dataSource: DataSource) {}

  /** Takes one attempt from `key`'s window; throws 429 rate_limited when none is left. */
  async reserve(rule: RateLimitRule, key: string): Promise<Record<string, string>> {
    try {
      const res = await this.store(rule).consume(counterKey(rule, key));
      return rateLimitHeaders(rule, res.remainingPoints, res.msBeforeNext / 1000);
    } catch (error) {
      if (error instanceof RateLimiterRes) throw rateLimited(rule, error.msBeforeNext / 1000);
      throw error;
    }
  }

  /**
   * Gives back an attempt taken by `reserve` that did not count, in the window it was taken
   * in only: once that window ended there is nothing to give back (rate-limiter-flexible's
   * `reward` would start the next window below zero, an extra attempt).
   */
  async refund(rule: RateLimitRule, key: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE rate_limits SET points = points - 1
       WHERE key = $1 AND points > 0 AND expire > (extract(epoch FROM clock_timestamp()) * 1000)::bigint`,
      [counterKey(rule, key)],
    );
  }

  /** Forgets `key`'s window (a password reset clears the failed-login count). */
  async clear(rule: RateLimitRule, key: string): Promise<void> {
    await this.store(rule).delete(counterKey(rule, key));
  }

  private store(rule: RateLimitRule): RateLimiterPostgres {
    const id = `${rule.policy}:${rule.limit}:${rule.windowSeconds}`;
    let store = this.stores.get(id);
    if (!store) {
      store = new RateLimiterPostgres({
        storeClient: this.dataSource,
        storeType: 'typeorm',
        tableName: 'rate_limits',
        tableCreated: true, // by migration
        clearExpiredByTimeout: false, // the maintenance job purges, once per cluster
        keyPrefix: '', // counterKey already names the policy
        points: rule.limit,
        duration: rule.windowSeconds,
      });
      this.stores.set(id, store);
    }
    return store;
  }
}
