import { Global, Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { RateLimiter } from './rate-limiter.service.js';

@Global()
@Module({
  // The throttler's storage only; its guard keys by route, and our limits need our own keys.
  imports: [ThrottlerModule.forRoot([])],
  providers: [RateLimiter],
  exports: [RateLimiter],
})
export class RateLimitModule {}
