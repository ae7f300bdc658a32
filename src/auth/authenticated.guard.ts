import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { BearerGuard } from './bearer.guard.js';
import { ScopesGuard } from './scopes.guard.js';
import { TokenRateLimitGuard } from './token-rate-limit.guard.js';

interface Checks {
  bearer: BearerGuard;
  rate: TokenRateLimitGuard;
  scopes: ScopesGuard;
}

/**
 * The guard of `@Authenticated`: the bearer token, then its rate, then the route's grants, in
 * that order, as one Nest guard. Nest awaits each guard of a route in turn; three guards cost
 * three awaited results and their bookkeeping on every authenticated request.
 */
@Injectable()
export class AuthenticatedGuard implements CanActivate {
  private checks?: Checks;

  // Resolved on first use: the CLI and the worker build the controllers' guards without the
  // HTTP authentication providers.
  constructor(private readonly moduleRef: ModuleRef) {}

  async canActivate(execution: ExecutionContext): Promise<boolean> {
    const { bearer, rate, scopes } = (this.checks ??= this.resolve());
    await bearer.canActivate(execution);
    rate.canActivate(execution);
    return scopes.canActivate(execution);
  }

  private resolve(): Checks {
    const get = <T>(type: new (...args: never[]) => T) =>
      this.moduleRef.get(type, { strict: false });
    return { bearer: get(BearerGuard), rate: get(TokenRateLimitGuard), scopes: get(ScopesGuard) };
  }
}
