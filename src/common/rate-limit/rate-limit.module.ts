import { Global, Module } from '@nestjs/common';
import { ExactRateLimiter } from './exact-rate-limiter.service.js';
import { SyncedRateLimiter } from './synced-rate-limiter.service.js';

@Global()
@Module({
  providers: [ExactRateLimiter, SyncedRateLimiter],
  exports: [ExactRateLimiter, SyncedRateLimiter],
})
export class RateLimitModule {}
