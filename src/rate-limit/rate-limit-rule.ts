import { createHash } from 'node:crypto';
import { AppError } from '../common/errors/app-error.js';

export interface RateLimitRule {
  /** Names the policy in the RateLimit headers, e.g. "login-email". */
  policy: string;
  limit: number;
  windowSeconds: number;
}

/** IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers). */
export function rateLimitHeaders(
  rule: RateLimitRule,
  remaining: number,
  resetSeconds: number,
): Record<string, string> {
  return {
    'ratelimit-policy': `"${rule.policy}";q=${rule.limit};w=${rule.windowSeconds}`,
    ratelimit: `"${rule.policy}";r=${Math.max(0, Math.floor(remaining))};t=${Math.max(1, Math.ceil(resetSeconds))}`,
  };
}

export function rateLimited(rule: RateLimitRule, retryAfterSeconds: number): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new AppError('rate_limited', `Too many requests; retry in ${seconds} s`, {
    headers: { ...rateLimitHeaders(rule, 0, seconds), 'retry-after': String(seconds) },
  });
}

/**
 * The stored key: a hash of policy and key, so counters name no email or address in clear
 * and every key fits the column whatever its length.
 */
export function counterKey(rule: RateLimitRule, key: string): string {
  return `${rule.policy}:${createHash('sha256').update(key).digest('base64url')}`;
}
