import {
  applyDecorators,
  createParamDecorator,
  type ExecutionContext,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiErrors } from '../common/errors/api-error.decorator.js';
import { ApiGrants } from './openapi-security.js';
import { AuthenticatedGuard } from './authenticated.guard.js';
import type { Grant } from './grants.js';
import type { AppContext, CustomerContext, RequestContext } from './request-context.js';
import { GRANTS } from './scopes.guard.js';

/**
 * A route that needs a bearer token matching one of the grants, e.g.
 * `@Authenticated(appScope('orders:read'), customerScope('order:read'))`.
 */
export function Authenticated(...grants: Grant[]): MethodDecorator & ClassDecorator {
  const needs = grants
    .map((g) => `${g.kind === 'app' ? 'an app token' : 'a customer session'} with \`${g.scope}\``)
    .join(' or ');
  return applyDecorators(
    SetMetadata(GRANTS, grants),
    UseGuards(AuthenticatedGuard),
    ApiGrants(grants),
    ApiErrors({
      unauthenticated: 'token missing, invalid, expired or revoked',
      scope_denied: `needs ${needs}`,
      rate_limited:
        'too many requests with this token, or on list and feed routes too many requests of ' +
        'the app or tenant in progress (`Retry-After`, `RateLimit` headers)',
    }),
  );
}

function contextOf(execution: ExecutionContext): RequestContext {
  return execution.switchToHttp().getRequest<FastifyRequest & { user: RequestContext }>().user;
}

/** The caller's RequestContext (set by BearerGuard), app or customer. */
export const Ctx = createParamDecorator(
  (_data: unknown, execution: ExecutionContext): RequestContext => contextOf(execution),
);

/** The caller as an app, for routes whose grants admit app tokens only. Fails closed. */
export const AppCtx = createParamDecorator(
  (_data: unknown, execution: ExecutionContext): AppContext => {
    const ctx = contextOf(execution);
    if (ctx.kind !== 'app') throw new Error('AppCtx on a route that admits customer sessions');
    return ctx;
  },
);

/** The caller as a customer, for routes whose grants admit customer sessions only. */
export const CustomerCtx = createParamDecorator(
  (_data: unknown, execution: ExecutionContext): CustomerContext => {
    const ctx = contextOf(execution);
    if (ctx.kind !== 'customer') throw new Error('CustomerCtx on a route that admits app tokens');
    return ctx;
  },
);
