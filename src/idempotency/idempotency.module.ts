import { Module } from '@nestjs/common';
import { Idempotency } from './idempotency.service.js';
import { IdempotencyStore } from './idempotency.store.js';

@Module({
  providers: [IdempotencyStore, Idempotency],
  exports: [IdempotencyStore, Idempotency],
})
export class IdempotencyModule {}
