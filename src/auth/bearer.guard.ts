import { type ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../common/errors/app-error.js';
import { invalidToken } from './access-token-verifier.service.js';
import type { RequestContext } from './request-context.js';

/**
 * RFC 6750 answers: no bearer credentials → `Bearer realm="api"` without an error code; a
 * token that fails any check → `error="invalid_token"`.
 */
@Injectable()
export class BearerGuard extends AuthGuard('bearer') {
  override handleRequest<T = RequestContext>(
    error: unknown,
    context: T | false,
    _info: unknown,
    execution: ExecutionContext,
  ): T {
    // The verifier refuses bad tokens with AppErrors; anything else is ours (the database
    // is down, a bug) and must not pass for a bad token: the filter answers 503 or 500.
    if (error) throw error;
    if (context) return context;
    const authorization = execution.switchToHttp().getRequest<FastifyRequest>()
      .headers.authorization;
    if (authorization !== undefined && /^bearer(\s|$)/i.test(authorization)) {
      throw invalidToken('The Authorization header is not a well-formed Bearer token');
    }
    throw new AppError('unauthenticated', 'A bearer token is required', {
      headers: { 'www-authenticate': 'Bearer realm="api"' },
    });
  }
}
