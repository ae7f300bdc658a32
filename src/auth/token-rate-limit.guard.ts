import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitRule } from '../rate-limit/rate-limit-rule.js';
import { SyncedRateLimiter } from '../rate-limit/synced-rate-limiter.service.js';
import { AppConfig } from '../config/app-config.js';
import type { RequestContext } from './request-context.js';

/**
 * Per-token request rate (docs/BEHAVIOUR.md#rate-limits): every authenticated request counts
 * against its token; the RateLimit header fields go on every response, 429 beyond the limit.
 * Decided in memory and reconciled across instances (SyncedRateLimiter): no round trip.
 */
@Injectable()
export class TokenRateLimitGuard implements CanActivate {
  private readonly rule: RateLimitRule;

  constructor(
    private readonly limiter: SyncedRateLimiter,
    config: AppConfig,
  ) {
    this.rule = { policy: 'token', limit: config.API_RATE_LIMIT_PER_TOKEN, windowSeconds: 60 };
  }

  canActivate(execution: ExecutionContext): boolean {
    const http = execution.switchToHttp();
    const ctx = http.getRequest<FastifyRequest & { user: RequestContext }>().user;
    const headers = this.limiter.hit(this.rule, ctx.tokenId);
    void http.getResponse<FastifyReply>().headers(headers);
    return true;
  }
}
