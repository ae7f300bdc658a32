import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AccessTokenIssuer } from './access-token-issuer.service.js';
import { AppTokensRepository } from './app-tokens.repository.js';
import { CredentialsEvents } from './credentials-events.service.js';
import { CredentialsNotifyRepository } from './credentials-notify.repository.js';
import { PublishedIssuerRepository } from './published-issuer.repository.js';
import { SigningKeys } from './signing-keys.js';

/** Signing and issuing tokens, announcing credential changes: shared by the API and the CLI. */
@Module({
  imports: [JwtModule.register({})],
  providers: [
    SigningKeys,
    AccessTokenIssuer,
    AppTokensRepository,
    CredentialsEvents,
    CredentialsNotifyRepository,
    PublishedIssuerRepository,
  ],
  exports: [
    SigningKeys,
    AccessTokenIssuer,
    AppTokensRepository,
    CredentialsEvents,
    PublishedIssuerRepository,
    JwtModule,
  ],
})
export class TokensModule {}
