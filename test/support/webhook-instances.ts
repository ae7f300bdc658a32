import { sharedInstanceEnv } from './processes.js';

/**
 * Settings for instances that share one database (its URL in DATABASE_URL) and deliver
 * webhooks to a receiver on loopback: the same secrets, no request limit in the way,
 * dispatch every 50 ms, 8 pollers each; `overrides` on top.
 */
export async function webhookInstancesEnv(
  overrides: Record<string, string> = {},
): Promise<Record<string, string> & { DATABASE_URL: string }> {
  const shared = await sharedInstanceEnv('http://127.0.0.1');
  return {
    SECRET_PEPPER: shared.SECRET_PEPPER,
    JWT_SIGNING_KEY: shared.JWT_SIGNING_KEY,
    DATABASE_URL: shared.DATABASE_URL,
    API_RATE_LIMIT_PER_TOKEN: '100000',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_DISPATCH_INTERVAL_MS: '50',
    WEBHOOK_CONCURRENCY: '8',
    ...overrides,
  };
}
