import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../common/errors/app-error.js';
import { invalidToken } from './access-token-verifier.service.js';
import { BearerStrategy } from './bearer.strategy.js';
import type { RequestContext } from './request-context.js';

/** One authentication attempt with the passport strategy: passport's success/fail/error protocol. */
interface StrategyAttempt {
  authenticate(request: unknown): void;
  success(user: RequestContext): void;
  fail(challenge?: unknown): void;
  error(error: unknown): void;
}

/**
 * Runs the registered passport-http-bearer strategy (bearer.strategy.ts) the way passport
 * runs one: an attempt object over the strategy with success, fail and error. Without
 * `passport.authenticate` and @nestjs/passport's AuthGuard around it, which build a
 * middleware, callbacks and promises per request: on the cheapest authenticated read that
 * machinery cost about as much as the rest of authentication.
 *
 * RFC 6750 answers: no bearer credentials → `Bearer realm="api"` without an error code; a
 * token that fails any check → `error="invalid_token"`.
 */
@Injectable()
export class BearerGuard implements CanActivate {
  private registered?: BearerStrategy;

  // Resolved on first use: the CLI and the worker build the controllers' guards without the
  // HTTP authentication providers.
  constructor(private readonly moduleRef: ModuleRef) {}

  private get strategy(): BearerStrategy {
    this.registered ??= this.moduleRef.get(BearerStrategy, { strict: false });
    return this.registered;
  }

  canActivate(execution: ExecutionContext): Promise<boolean> {
    const request = execution
      .switchToHttp()
      .getRequest<FastifyRequest & { user?: RequestContext }>();
    return new Promise((resolve, reject) => {
      const attempt = Object.create(this.strategy) as StrategyAttempt;
      attempt.success = (user) => {
        request.user = user;
        resolve(true);
      };
      attempt.fail = () => reject(refusal(request.headers.authorization));
      // The verifier refuses bad tokens with AppErrors; anything else is ours (the database
      // is down, a bug) and must not pass for a bad token: the filter answers 503 or 500.
      attempt.error = reject;
      attempt.authenticate(request);
    });
  }
}

function refusal(authorization: string | undefined): AppError {
  if (authorization !== undefined && /^bearer(\s|$)/i.test(authorization)) {
    return invalidToken('The Authorization header is not a well-formed Bearer token');
  }
  return new AppError('unauthenticated', 'A bearer token is required', {
    headers: { 'www-authenticate': 'Bearer realm="api"' },
  });
}
