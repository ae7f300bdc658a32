import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AccessTokenIssuer } from './access-token-issuer.service.js';
import { SigningKeys } from './signing-keys.js';

/** Signing and issuing tokens: shared by the token endpoint and the CLI. */
@Module({
  imports: [JwtModule.register({})],
  providers: [SigningKeys, AccessTokenIssuer],
  exports: [SigningKeys, AccessTokenIssuer, JwtModule],
})
export class TokensModule {}
