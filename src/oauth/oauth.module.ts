import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module.js';
import { TokensModule } from '../auth/tokens.module.js';
import { ClientAuthenticator } from './client-authenticator.service.js';
import { ClientTokensController } from './client-tokens.controller.js';
import { ClientTokensService } from './client-tokens.service.js';
import { TokenController } from './token.controller.js';
import { TokenEndpointService } from './token-endpoint.service.js';
import { WellKnownController } from './well-known.controller.js';

@Module({
  imports: [AppsModule, TokensModule],
  controllers: [TokenController, ClientTokensController, WellKnownController],
  providers: [TokenEndpointService, ClientAuthenticator, ClientTokensService],
})
export class OAuthModule {}
