import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../common/errors/app-error.js';
import type { Grant } from './grants.js';
import type { RequestContext } from './request-context.js';

export const GRANTS = 'auth:grants';

/**
 * Lets a request through when one of the route's grants matches the token's kind and
 * scopes. Otherwise 403 scope_denied naming the scope the token's kind would need.
 */
@Injectable()
export class ScopesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(execution: ExecutionContext): boolean {
    const grants = this.reflector.getAllAndOverride<Grant[] | undefined>(GRANTS, [
      execution.getHandler(),
      execution.getClass(),
    ]);
    const ctx = execution
      .switchToHttp()
      .getRequest<FastifyRequest & { user: RequestContext }>().user;
    if (!grants) return true;
    if (grants.some((g) => g.kind === ctx.kind && ctx.scopes.has(g.scope))) return true;
    const needed = grants.find((g) => g.kind === ctx.kind) ?? grants[0];
    const reason =
      needed.kind === ctx.kind
        ? `The token lacks the scope ${needed.scope}`
        : `This endpoint needs ${needed.kind === 'app' ? 'an app' : 'a customer session'} token with scope ${needed.scope}`;
    throw new AppError('scope_denied', reason, {
      headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${needed.scope}"` },
    });
  }
}
