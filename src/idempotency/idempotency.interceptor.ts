import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, lastValueFrom, type Observable } from 'rxjs';
import type { RequestContext } from '../auth/request-context.js';
import { AppError } from '../common/errors/app-error.js';
import type { HttpResult } from '../common/http/http-result.js';
import { Transactions } from '../common/transactions.js';
import { AppConfig } from '../config/app-config.js';
import { requestHash } from './canonical-json.js';
import { parseIdempotencyKey } from './idempotency-key.js';
import { IdempotencyStore, type IdempotencyScope } from './idempotency.store.js';

/**
 * Idempotency-Key (CONTRACT 3.5) around a handler that returns an HttpResult.
 *
 * With a key, one transaction spans: the key's advisory lock (taken without waiting, so a
 * concurrent duplicate gets 409 at once), the lookup of a stored response (replayed, or 422
 * for another body), the handler's own writes (they join the ambient transaction) and the
 * stored 2xx response. The key's primary key settles any race the lock did not. A failing
 * handler rolls everything back, so a 4xx leaves the key usable.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly transactions: Transactions,
    private readonly config: AppConfig,
  ) {}

  intercept(execution: ExecutionContext, next: CallHandler<HttpResult>): Observable<void> {
    const http = execution.switchToHttp();
    return from(this.handle(http.getRequest(), http.getResponse(), next));
  }

  private async handle(
    request: FastifyRequest & { user: RequestContext },
    reply: FastifyReply,
    next: CallHandler<HttpResult>,
  ): Promise<void> {
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    const handle = () => lastValueFrom(next.handle());
    if (key === undefined) {
      send(reply, await handle(), false);
      return;
    }
    const ctx = request.user;
    const scope: IdempotencyScope = {
      tenantId: ctx.tenantId,
      appId: ctx.appId,
      method: request.method,
      path: request.url.split('?')[0],
      key,
    };
    const hash = requestHash(request.body);
    const { result, replayed } = await this.transactions
      .run(async (manager) => {
        if (!(await this.store.tryLock(manager, scope))) throw inUse();
        const stored = await this.store.find(manager, scope);
        if (stored) {
          if (!stored.requestHash.equals(hash)) {
            throw new AppError(
              'idempotency_key_reused',
              'This Idempotency-Key was used with a different request body',
            );
          }
          return { result: stored, replayed: true };
        }
        const fresh = await handle();
        if (fresh.status >= 200 && fresh.status < 300) {
          await this.store.save(manager, scope, hash, fresh, this.config.IDEMPOTENCY_TTL_HOURS);
        }
        return { result: fresh, replayed: false };
      })
      .catch((error: unknown) => {
        // Only a race the advisory lock missed can reach the primary key.
        if ((error as { code?: string }).code === '23505') throw inUse();
        throw error;
      });
    send(reply, result, replayed);
  }
}

function inUse(): AppError {
  return new AppError(
    'idempotency_key_in_use',
    'A request with this Idempotency-Key is still being processed',
    {
      headers: { 'retry-after': '1' },
    },
  );
}

function send(reply: FastifyReply, result: HttpResult, replayed: boolean): void {
  void reply.status(result.status).headers(result.headers);
  if (replayed) void reply.header('idempotent-replayed', 'true');
  void reply.send(result.body);
}
