import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AccessTokenIssuer } from './access-token-issuer.service.js';
import { AppClientsRepository } from './app-clients.repository.js';
import { AppTokensRepository } from './app-tokens.repository.js';
import { CredentialsEvents } from './credentials-events.service.js';
import { CredentialsNotifyRepository } from './credentials-notify.repository.js';
import { CustomerSessions } from './customer-sessions.service.js';
import { CustomerSessionsRepository } from './customer-sessions.repository.js';
import { PublishedIssuerRepository } from './published-issuer.repository.js';
import { RefreshChainsRepository } from './refresh-chains.repository.js';
import { SigningKeys } from './signing-keys.js';

/**
 * Signing, issuing and ending tokens (app tokens, customer sessions and their refresh chains),
 * announcing credential changes: shared by the API and the CLI.
 */
@Module({
  imports: [JwtModule.register({})],
  providers: [
    SigningKeys,
    AccessTokenIssuer,
    AppTokensRepository,
    AppClientsRepository,
    CredentialsEvents,
    CredentialsNotifyRepository,
    PublishedIssuerRepository,
    RefreshChainsRepository,
    CustomerSessionsRepository,
    CustomerSessions,
  ],
  exports: [
    SigningKeys,
    AccessTokenIssuer,
    AppTokensRepository,
    AppClientsRepository,
    CredentialsEvents,
    PublishedIssuerRepository,
    RefreshChainsRepository,
    CustomerSessions,
    JwtModule,
  ],
})
export class TokensModule {}
