import { createHmac } from 'node:crypto';
import type { RateLimitRule } from '../rate-limit/rate-limit-rule.js';
import type { AppConfig } from '../config/app-config.js';

/**
 * The customer limits (docs/BEHAVIOUR.md#rate-limits), from configuration; keys are tenant-first.
 */
export function loginLimits(config: AppConfig): {
  failuresPerEmail: RateLimitRule;
  failuresPerCustomerIp: RateLimitRule;
  registrationsPerCustomerIp: RateLimitRule;
} {
  const windowSeconds = config.LOGIN_FAILURE_WINDOW_SECONDS;
  return {
    failuresPerEmail: {
      policy: 'login-email',
      limit: config.LOGIN_FAILURES_PER_EMAIL,
      windowSeconds,
    },
    failuresPerCustomerIp: {
      policy: 'login-customer-ip',
      limit: config.LOGIN_FAILURES_PER_CUSTOMER_IP,
      windowSeconds,
    },
    registrationsPerCustomerIp: {
      policy: 'register-customer-ip',
      limit: config.REGISTRATIONS_PER_CUSTOMER_IP,
      windowSeconds: config.REGISTRATION_WINDOW_SECONDS,
    },
  };
}

/**
 * The failed-login key of an email, from its key as PostgreSQL lowers it (`email_key`,
 * `lookupForLogin`): JavaScript's toLowerCase differs for some letters under a non-C
 * collation, and a second spelling must not get attempts of its own. Counters are rows of
 * `rate_limits`: the email is kept there only as an HMAC under the pepper, never in clear
 * (docs/SECURITY.md#personal-data).
 */
export function emailKey(pepper: Buffer, tenantId: number, databaseLowered: string): string {
  const hash = createHmac('sha256', pepper)
    .update(`login-email:${databaseLowered}`, 'utf8')
    .digest('base64url');
  return `${tenantId}:${hash}`;
}
