import { Injectable } from '@nestjs/common';
import type { CrossTenantSql } from '../database/sql/cross-tenant-sql.js';
import type { SharedSql } from '../database/sql/shared-sql.js';

/**
 * Rows of tenant tables that outlived their use, by table. Tokens and sessions stay an hour
 * past expiry (beyond any clock leeway), then no check can need them; Idempotency-Keys go as
 * soon as they end (expired keys are ignored meanwhile); tickets at expiry, used ones at the
 * latest a day after use.
 */
const TENANT_PURGES = {
  idempotency_keys: 'DELETE FROM idempotency_keys WHERE expires_at <= now()',
  app_tokens: "DELETE FROM app_tokens WHERE expires_at < now() - interval '1 hour'",
  customer_sessions: "DELETE FROM customer_sessions WHERE expires_at < now() - interval '1 hour'",
  // A chain's tokens go with it (ON DELETE CASCADE); its sessions end by their own expiry.
  customer_refresh_chains: `DELETE FROM customer_refresh_chains
    WHERE least(expires_at, idle_expires_at, ended_at) < now() - interval '1 hour'`,
  customer_tickets:
    "DELETE FROM customer_tickets WHERE expires_at < now() OR used_at < now() - interval '1 day'",
} as const;

export type TenantPurgeCounts = Record<keyof typeof TENANT_PURGES, number>;

/** Expired rows of every tenant (the maintenance's cross-tenant path) and of shared tables. */
@Injectable()
export class ExpiredRowsRepository {
  /** Deletes every tenant's expired rows; returns how many per table. */
  async purgeTenantRows(db: CrossTenantSql): Promise<TenantPurgeCounts> {
    const counts = {} as TenantPurgeCounts;
    for (const [table, sql] of Object.entries(TENANT_PURGES) as Array<
      [keyof TenantPurgeCounts, string]
    >) {
      counts[table] = await db.count(sql);
    }
    return counts;
  }

  /** Rate-limit windows that ended (shared: their keys are not rows of a tenant). */
  purgeRateLimits(db: SharedSql): Promise<number> {
    return db.count(
      'DELETE FROM rate_limits WHERE expire < (extract(epoch FROM now()) * 1000)::bigint',
    );
  }
}
