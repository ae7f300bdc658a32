import { applyDecorators, HttpCode, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import {
  IDEMPOTENT_ROUTE,
  IdempotencyInterceptor,
  type IdempotentRoute,
} from './idempotency.interceptor.js';

/** The error rows an idempotent route adds to its own (pass to ApiErrors with the route's). */
export const IDEMPOTENCY_ERRORS = {
  validation_failed: 'malformed body or Idempotency-Key',
  idempotency_key_in_use: 'the first request with this key is still running',
  idempotency_key_reused: 'the key was used with another body',
} as const;

/**
 * A route that takes an Idempotency-Key: IdempotencyInterceptor runs the handler (in the
 * key's unit of work when one is sent) and sends its answer. The handler returns its body,
 * sent with `status` and the `headers` of that body, or an HttpAnswer when its status or
 * headers are decided at run time.
 */
export function Idempotent<T>(route: IdempotentRoute<T>): MethodDecorator {
  return applyDecorators(
    HttpCode(route.status),
    SetMetadata(IDEMPOTENT_ROUTE, route),
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        '1–255 printable ASCII characters (or the structured-field quoted form). A retry with the same key and ' +
        'body replays the stored response with `Idempotent-Replayed: true`; keys live 24 h per (app, method, route).',
    }),
  );
}
