import { Module } from '@nestjs/common';
import { IdempotencyPurger } from './idempotency-purger.js';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';
import { IdempotencyStore } from './idempotency.store.js';

@Module({
  providers: [IdempotencyStore, IdempotencyInterceptor, IdempotencyPurger],
  exports: [IdempotencyStore, IdempotencyInterceptor, IdempotencyPurger],
})
export class IdempotencyModule {}
