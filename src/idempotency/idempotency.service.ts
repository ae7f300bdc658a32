import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error.js';
import type { HttpResult } from '../common/http/http-result.js';
import { Transactions } from '../common/transactions.js';
import { AppConfig } from '../config/app-config.js';
import { IdempotencyRepository, type IdempotencyScope } from './idempotency.repository.js';

/** A request that carried an Idempotency-Key (see `@IdempotentRequest()`). */
export interface IdempotentCall {
  tenantId: number;
  scope: IdempotencyScope;
  /** SHA-256 of the canonical JSON body. */
  requestHash: Buffer;
}

export interface IdempotentResult extends HttpResult {
  /** True when this is the stored response of an earlier request with the key. */
  replayed: boolean;
}

/**
 * Idempotency-Key (docs/BEHAVIOUR.md#idempotency) as an explicit wrapper around a handler's work.
 *
 * With a key, one transaction spans: the key's advisory lock (taken without waiting, so a
 * concurrent duplicate gets 409 at once), the lookup of a stored response (replayed, or 422
 * for another body), the work's own writes (they join the ambient transaction) and the
 * stored 2xx response. The key's primary key settles any race the lock did not. Failing work
 * rolls everything back, so a 4xx leaves the key usable.
 */
@Injectable()
export class Idempotency {
  constructor(
    private readonly store: IdempotencyRepository,
    private readonly transactions: Transactions,
    private readonly config: AppConfig,
  ) {}

  async run(
    call: IdempotentCall | undefined,
    work: () => Promise<HttpResult>,
  ): Promise<IdempotentResult> {
    if (!call) return { ...(await work()), replayed: false };
    return this.transactions
      .run(async (db): Promise<IdempotentResult> => {
        const tenant = db.tenant(call.tenantId);
        if (!(await this.store.tryLock(tenant, call.scope))) throw inUse();
        const stored = await this.store.find(tenant, call.scope);
        if (stored) {
          if (!stored.requestHash.equals(call.requestHash)) {
            throw new AppError(
              'idempotency_key_reused',
              'This Idempotency-Key was used with a different request body',
            );
          }
          return {
            status: stored.status,
            headers: stored.headers,
            body: stored.body,
            replayed: true,
          };
        }
        const fresh = await work();
        if (fresh.status >= 200 && fresh.status < 300) {
          await this.store.save(
            tenant,
            call.scope,
            call.requestHash,
            fresh,
            this.config.IDEMPOTENCY_TTL_HOURS,
          );
        }
        return { ...fresh, replayed: false };
      })
      .catch((error: unknown) => {
        // Only a race the advisory lock missed can reach the primary key.
        if ((error as { code?: string }).code === '23505') throw inUse();
        throw error;
      });
  }
}

function inUse(): AppError {
  return new AppError(
    'idempotency_key_in_use',
    'A request with this Idempotency-Key is still being processed',
    { headers: { 'retry-after': '1' } },
  );
}
