import { Module } from '@nestjs/common';
import { Idempotency } from './idempotency.service.js';
import { IdempotencyRepository } from './idempotency.repository.js';

@Module({
  providers: [IdempotencyRepository, Idempotency],
  exports: [IdempotencyRepository, Idempotency],
})
export class IdempotencyModule {}
