import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';

/** The error rows an idempotent route adds to its own (pass to ApiErrors with the route's). */
export const IDEMPOTENCY_ERRORS = {
  validation_failed: 'malformed body or Idempotency-Key',
  idempotency_key_in_use: 'the first request with this key is still running',
  idempotency_key_reused: 'the key was used with another body',
} as const;

/**
 * Makes a POST idempotent under the Idempotency-Key header. The handler returns an
 * HttpResult and declares `@Res()` so that the interceptor, not Nest, sends it.
 */
export function Idempotent(): MethodDecorator {
  return applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        '1–255 printable ASCII characters (or the structured-field quoted form). A retry with the same key and ' +
        'body replays the stored response with `Idempotent-Replayed: true`; keys live 24 h per (app, method, path).',
    }),
  );
}
