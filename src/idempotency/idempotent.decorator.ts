import { applyDecorators, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestContext } from '../auth/request-context.js';
import { requestHash } from './canonical-json.js';
import { parseIdempotencyKey } from './idempotency-key.js';
import type { IdempotentCall, IdempotentResult } from './idempotency.service.js';

/** The error rows an idempotent route adds to its own (pass to ApiErrors with the route's). */
export const IDEMPOTENCY_ERRORS = {
  validation_failed: 'malformed body or Idempotency-Key',
  idempotency_key_in_use: 'the first request with this key is still running',
  idempotency_key_reused: 'the key was used with another body',
} as const;

/** Documents the Idempotency-Key header of a route. */
export function Idempotent(): MethodDecorator {
  return applyDecorators(
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        '1–255 printable ASCII characters (or the structured-field quoted form). A retry with the same key and ' +
        'body replays the stored response with `Idempotent-Replayed: true`; keys live 24 h per (app, method, route).',
    }),
  );
}

/**
 * The request's Idempotency-Key with its scope, or undefined without one; a malformed key is
 * 400. Scoped by the route template, never the raw path: `/v1/%6Frders` is `/v1/orders`.
 */
export const IdempotentRequest = createParamDecorator(
  (_data: unknown, execution: ExecutionContext): IdempotentCall | undefined => {
    const request = execution
      .switchToHttp()
      .getRequest<FastifyRequest & { user: RequestContext }>();
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    if (key === undefined) return undefined;
    return {
      tenantId: request.user.tenantId,
      scope: {
        appId: request.user.appId,
        method: request.method,
        path: request.routeOptions.url ?? request.url.split('?')[0],
        key,
      },
      requestHash: requestHash(request.body),
    };
  },
);

/**
 * Sends a result whose status is decided at run time (201, 202 or 200). The handler takes
 * `@Res()` for it: Nest would overwrite any status set on a passthrough reply with the
 * route's default.
 */
export function sendResult(reply: FastifyReply, result: IdempotentResult): void {
  void reply.status(result.status).headers(result.headers);
  if (result.replayed) void reply.header('idempotent-replayed', 'true');
  void reply.send(result.body);
}
