import { Global, Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { AccessTokenVerifier } from './access-token-verifier.service.js';
import { BearerGuard } from './bearer.guard.js';
import { BearerStrategy } from './bearer.strategy.js';
import { CredentialsState } from './credentials-state.service.js';
import { CredentialsRepository } from './credentials.repository.js';
import { ScopesGuard } from './scopes.guard.js';
import { TokenRateLimitGuard } from './token-rate-limit.guard.js';
import { TokensModule } from './tokens.module.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

/** Bearer authentication for the HTTP API; global so every feature module can guard routes. */
@Global()
@Module({
  imports: [PassportModule.register({ session: false }), TokensModule],
  providers: [
    CredentialsState,
    CredentialsRepository,
    // One per application (tests run several in a process); the factory sets the bound.
    { provide: VerifiedTokenCache, useFactory: () => new VerifiedTokenCache() },
    AccessTokenVerifier,
    BearerStrategy,
    BearerGuard,
    ScopesGuard,
    TokenRateLimitGuard,
  ],
  exports: [
    CredentialsState,
    AccessTokenVerifier,
    BearerGuard,
    ScopesGuard,
    TokenRateLimitGuard,
    TokensModule,
  ],
})
export class AuthModule {}
