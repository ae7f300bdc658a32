import { Injectable } from '@nestjs/common';
import { Transactions } from '../database/transactions.js';
import type { Db } from '../database/sql/db.js';
import {
  counterKey,
  rateLimited,
  rateLimitHeaders,
  type RateLimitRule,
} from './rate-limit-rule.js';
import { RateLimitsRepository } from './rate-limits.repository.js';

/**
 * Exact limits shared by every instance: one atomic upsert per attempt on a fixed-window
 * counter in PostgreSQL. For the limits that guard costly or sensitive work (logins,
 * registrations, failed client authentications), where one round trip is cheap next to the
 * work and over-admission is not acceptable.
 *
 * `reserve` counts before the work is done: a burst in flight cannot slip past the check
 * (check-then-count would let every concurrent attempt through). Attempts that turn out not
 * to count (a successful login) are handed back with `refund`.
 */
@Injectable()
export class ExactRateLimiter {
  /**
   * The request pool's, never a caller's unit of work: an attempt counts at once and stays
   * counted whatever becomes of the work it guards (a failed login rolls back; its attempt
   * must not).
   */
  private readonly db: Db;

  constructor(
    transactions: Transactions,
    private readonly rateLimits: RateLimitsRepository,
  ) {
    this.db = transactions.pool;
  }

  /** Takes one attempt from `key`'s window; throws 429 rate_limited when none is left. */
  async reserve(rule: RateLimitRule, key: string): Promise<Record<string, string>> {
    const window = await this.rateLimits.consume(
      this.db.shared(),
      counterKey(rule, key),
      rule.windowSeconds * 1000,
      Date.now(),
    );
    const resetSeconds = Math.max(window.expire - Date.now(), 0) / 1000;
    if (window.points > rule.limit) throw rateLimited(rule, resetSeconds);
    return rateLimitHeaders(rule, Math.max(rule.limit - window.points, 0), resetSeconds);
  }

  /**
   * Gives back an attempt taken by `reserve` that did not count, in the window it was taken
   * in only: once that window ended there is nothing to give back (handing it to the next
   * window would start that one below zero, an extra attempt).
   */
  async refund(rule: RateLimitRule, key: string): Promise<void> {
    await this.rateLimits.refund(this.db.shared(), counterKey(rule, key));
  }

  /** Forgets `key`'s window (a password reset clears the failed-login count). */
  async clear(rule: RateLimitRule, key: string): Promise<void> {
    await this.rateLimits.delete(this.db.shared(), counterKey(rule, key));
  }
}
