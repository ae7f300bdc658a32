import { Inject, Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { AppError } from '../errors/app-error.js';

export interface RateLimitRule {
  /** Names the policy in the RateLimit headers, e.g. "token-client". */
  policy: string;
  limit: number;
  windowSeconds: number;
}

/**
 * Counters on @nestjs/throttler's storage, answered with the IETF RateLimit header fields
 * (draft-ietf-httpapi-ratelimit-headers) and 429 `rate_limited` + Retry-After.
 * Counters live in each process: with N instances behind a balancer the effective limit is
 * up to N times the configured one (README).
 */
@Injectable()
export class RateLimiter {
  /** Keys the storage reported blocked, with when that ends; read before doing costly work. */
  private readonly blockedUntil = new Map<string, number>();

  constructor(@Inject(ThrottlerStorage) private readonly storage: ThrottlerStorage) {}

  /**
   * Throws rate_limited if an earlier `hit` blocked this key and the block still runs. For
   * limits that count only failures (logins): check first, count after a failure.
   */
  assertNotBlocked(rule: RateLimitRule, key: string): void {
    const id = `${rule.policy}:${key}`;
    const until = this.blockedUntil.get(id);
    if (until === undefined) return;
    const seconds = Math.ceil((until - Date.now()) / 1000);
    if (seconds <= 0) {
      this.blockedUntil.delete(id);
      return;
    }
    throw limited(rule, seconds);
  }

  /** Counts one hit against `key`; throws rate_limited once over the limit. Returns headers. */
  async hit(rule: RateLimitRule, key: string): Promise<Record<string, string>> {
    const windowMs = rule.windowSeconds * 1000;
    const record = await this.storage.increment(
      `${rule.policy}:${key}`,
      windowMs,
      rule.limit,
      windowMs,
      rule.policy,
    );
    const reset = Math.max(
      1,
      Math.ceil(record.isBlocked ? record.timeToBlockExpire : record.timeToExpire),
    );
    const remaining = Math.max(0, rule.limit - record.totalHits);
    const headers = {
      'ratelimit-policy': `"${rule.policy}";q=${rule.limit};w=${rule.windowSeconds}`,
      ratelimit: `"${rule.policy}";r=${remaining};t=${reset}`,
    };
    if (record.isBlocked) {
      this.rememberBlock(`${rule.policy}:${key}`, reset);
      throw limited(rule, reset);
    }
    return headers;
  }

  private rememberBlock(id: string, seconds: number): void {
    const now = Date.now();
    if (this.blockedUntil.size > 10_000) {
      for (const [key, until] of this.blockedUntil) if (until <= now) this.blockedUntil.delete(key);
    }
    this.blockedUntil.set(id, now + seconds * 1000);
  }
}

function limited(rule: RateLimitRule, seconds: number): AppError {
  return new AppError('rate_limited', `Too many requests; retry in ${seconds} s`, {
    headers: {
      'ratelimit-policy': `"${rule.policy}";q=${rule.limit};w=${rule.windowSeconds}`,
      ratelimit: `"${rule.policy}";r=0;t=${seconds}`,
      'retry-after': String(seconds),
    },
  });
}
