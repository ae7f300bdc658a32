import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, lastValueFrom, map, type Observable } from 'rxjs';
import type { RequestContext } from '../auth/request-context.js';
import { AppError } from '../common/errors/app-error.js';
import { HttpAnswer, type HttpResult } from '../common/http/http-result.js';
import { Transactions } from '../database/transactions.js';
import { AppConfig } from '../config/app-config.js';
import { legacyRequestHash, requestHash } from './canonical-json.js';
import { ServerSecrets } from '../config/server-secrets.js';
import { parseIdempotencyKey } from './idempotency-key.js';
import { IdempotencyRepository, type IdempotencyScope } from './idempotency.repository.js';

/** What `@Idempotent()` says about its route. */
export interface IdempotentRoute<T = never> {
  /** The route's status: what a handler returning its bare body answers with. */
  status: number;
  /** Headers of an answer, from its body (`Location`). */
  headers?: (body: T) => Record<string, string>;
}

export const IDEMPOTENT_ROUTE = 'storefront:idempotent-route';

/** A request that carried an Idempotency-Key. */
interface IdempotentCall {
  tenantId: number;
  scope: IdempotencyScope;
  /** HMAC (under the pepper) of the canonical JSON body. */
  requestHash: Buffer;
  /** For the legacy hash of a key stored before the HMAC (canonical-json.ts). */
  body: unknown;
}

interface IdempotentResult extends HttpResult {
  /** True when this is the stored response of an earlier request with the key. */
  replayed: boolean;
}

/**
 * Idempotency-Key (docs/BEHAVIOUR.md#idempotency) around an `@Idempotent()` route's handler.
 *
 * With a key, one unit of work spans: the key's advisory lock (taken without waiting, so a
 * concurrent duplicate gets 409 at once), the lookup of a stored response (replayed, or 422
 * for another body), the handler's own writes (they join the ambient unit) and the stored
 * 2xx response. The key's primary key settles any race the lock did not. A failing handler
 * rolls everything back, so a 4xx leaves the key usable. Without a key, the handler runs as
 * it is. Either way the answer goes out with its status and headers.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly transactions: Transactions,
    private readonly config: AppConfig,
    private readonly reflector: Reflector,
    private readonly secrets: ServerSecrets,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const route = this.reflector.get<IdempotentRoute<unknown> | undefined>(
      IDEMPOTENT_ROUTE,
      context.getHandler(),
    );
    if (!route) throw new Error('IdempotencyInterceptor on a route without @Idempotent()');
    const http = context.switchToHttp();
    const call = idempotentCallOf(http.getRequest(), this.secrets.pepper);
    // next.handle() inside the work, so that the handler runs in the key's unit of work.
    const work = async (): Promise<HttpResult> =>
      resultOf(await lastValueFrom(next.handle()), route);
    return from(this.run(call, work)).pipe(
      map((result) => send(http.getResponse(), result, route.status)),
    );
  }

  private async run(
    call: IdempotentCall | undefined,
    work: () => Promise<HttpResult>,
  ): Promise<IdempotentResult> {
    if (!call) return { ...(await work()), replayed: false };
    return this.transactions
      .run(async (db): Promise<IdempotentResult> => {
        const tenant = db.tenant(call.tenantId);
        if (!(await this.keys.tryLock(tenant, call.scope))) throw inUse();
        const stored = await this.keys.find(tenant, call.scope);
        if (stored) {
          if (
            !stored.requestHash.equals(call.requestHash) &&
            !stored.requestHash.equals(legacyRequestHash(call.body))
          ) {
            throw new AppError(
              'idempotency_key_reused',
              'This Idempotency-Key was used with a different request body',
            );
          }
          const { status, headers, body } = stored;
          return { status, headers, body, replayed: true };
        }
        const fresh = await work();
        if (fresh.status >= 200 && fresh.status < 300) {
          await this.keys.save(
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

/**
 * The request's Idempotency-Key with its scope, or undefined without one; a malformed key is
 * 400. Scoped by the route's path as its template and parameters give it, never the raw path:
 * `/v1/%6Frders` is `/v1/orders`, `/v1/orders/012/refunds` is `/v1/orders/12/refunds`, and a
 * key used on one order's refunds is another key on another order's.
 */
function idempotentCallOf(
  request: FastifyRequest & { user: RequestContext },
  pepper: Buffer,
): IdempotentCall | undefined {
  const key = parseIdempotencyKey(request.headers['idempotency-key']);
  if (key === undefined) return undefined;
  return {
    tenantId: request.user.tenantId,
    scope: {
      appId: request.user.appId,
      method: request.method,
      path: scopePath(request),
      key,
    },
    requestHash: requestHash(request.body, pepper),
    body: request.body,
  };
}

/** The route template with its parameters filled in (digits without leading zeros). */
function scopePath(request: FastifyRequest): string {
  const template = request.routeOptions.url;
  if (template === undefined) return request.url.split('?')[0];
  const params = request.params as Record<string, string | undefined>;
  return template.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name] ?? '';
    return /^\d+$/.test(value) ? value.replace(/^0+(?=\d)/, '') : encodeURIComponent(value);
  });
}

/** The handler's answer: an HttpAnswer as it is, a bare body with the route's status. */
function resultOf(value: unknown, route: IdempotentRoute<unknown>): HttpResult {
  if (value instanceof HttpAnswer) {
    return { status: value.status, headers: value.headers, body: value.body };
  }
  return { status: route.status, headers: route.headers?.(value) ?? {}, body: value };
}

/**
 * Sets the answer's headers and hands Nest what to send. Nest sends a returned body with the
 * route's status, whatever was set on the reply before; an answer with another status (a
 * repeated import's 200, or its replay) goes as a web Response, whose status Nest keeps.
 */
function send(reply: FastifyReply, result: IdempotentResult, routeStatus: number): unknown {
  void reply.headers(result.headers);
  if (result.replayed) void reply.header('idempotent-replayed', 'true');
  if (result.status === routeStatus) return result.body;
  const json = JSON.stringify(result.body);
  return new Response(json, {
    status: result.status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(json)),
    },
  });
}

function inUse(): AppError {
  return new AppError(
    'idempotency_key_in_use',
    'A request with this Idempotency-Key is still being processed',
    { headers: { 'retry-after': '1' } },
  );
}
