import { Module } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';
import { IdempotencyRepository } from './idempotency.repository.js';

/** `@Idempotent()` routes: their modules import this for the interceptor and its keys. */
@Module({
  providers: [IdempotencyRepository, IdempotencyInterceptor],
  exports: [IdempotencyRepository, IdempotencyInterceptor],
})
export class IdempotencyModule {}
