import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiter, type RateLimitRule } from '../common/rate-limit/rate-limiter.service.js';
import { AppConfig } from '../config/app-config.js';
import type { RequestContext } from './request-context.js';

/**
 * Per-token request rate (CONTRACT section 4): every authenticated request counts against
 * its token; the RateLimit header fields go on every response, 429 beyond the limit.
 */
@Injectable()
export class TokenRateLimitGuard implements CanActivate {
  private readonly rule: RateLimitRule;

  constructor(
    private readonly limiter: RateLimiter,
    config: AppConfig,
  ) {
    this.rule = { policy: 'token', limit: config.API_RATE_LIMIT_PER_TOKEN, windowSeconds: 60 };
  }

  async canActivate(execution: ExecutionContext): Promise<boolean> {
    const http = execution.switchToHttp();
    const ctx = http.getRequest<FastifyRequest & { user: RequestContext }>().user;
    const headers = await this.limiter.hit(this.rule, ctx.tokenId);
    void http.getResponse<FastifyReply>().headers(headers);
    return true;
  }
}
