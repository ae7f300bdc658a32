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
  constructor(@Inject(ThrottlerStorage) private readonly storage: ThrottlerStorage) {}

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
      throw new AppError('rate_limited', `Too many requests; retry in ${reset} s`, {
        headers: { ...headers, 'retry-after': String(reset) },
      });
    }
    return headers;
  }
}
