import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiConflictResponse, ApiHeader, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';

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
    ApiConflictResponse({
      description: '`idempotency_key_in_use`: the first request with this key is still running',
    }),
    ApiUnprocessableEntityResponse({
      description: '`idempotency_key_reused`: the key was used with another body',
    }),
  );
}
