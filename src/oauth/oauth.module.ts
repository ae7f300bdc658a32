import { Module } from '@nestjs/common';
import { TokenController } from './token.controller.js';
import { TokenEndpointService } from './token-endpoint.service.js';
import { WellKnownController } from './well-known.controller.js';

@Module({ controllers: [TokenController, WellKnownController], providers: [TokenEndpointService] })
export class OAuthModule {}
