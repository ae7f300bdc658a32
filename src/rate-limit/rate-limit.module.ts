import { Global, Module } from '@nestjs/common';
import { ExactRateLimiter } from './exact-rate-limiter.service.js';
import { ExpensiveRequests } from './expensive-requests.js';
import { RateLimitsRepository } from './rate-limits.repository.js';
import { SyncedRateLimiter } from './synced-rate-limiter.service.js';

@Global()
@Module({
  providers: [ExactRateLimiter, SyncedRateLimiter, ExpensiveRequests, RateLimitsRepository],
  exports: [ExactRateLimiter, SyncedRateLimiter, ExpensiveRequests],
})
export class RateLimitModule {}
