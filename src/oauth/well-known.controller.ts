import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { APP_SCOPES } from '../auth/scopes.js';
import { SigningKeys } from '../auth/signing-keys.js';
import { AppConfig } from '../config/app-config.js';

@ApiTags('oauth')
@Controller('.well-known')
export class WellKnownController {
  constructor(
    private readonly keys: SigningKeys,
    private readonly config: AppConfig,
  ) {}

  @Get('jwks.json')
  @Header('cache-control', 'public, max-age=300')
  @ApiOperation({
    summary: 'Public keys that verify access tokens (JWK Set)',
    description:
      'The ES256 (P-256) keys, by `kid`, that verify app tokens and customer session tokens: the ' +
      'signing key and any earlier one still accepted. Cacheable for 5 minutes. Public: no token.',
  })
  @ApiOkResponse({
    schema: {
      example: {
        keys: [{ kty: 'EC', crv: 'P-256', x: '…', y: '…', kid: '…', alg: 'ES256', use: 'sig' }],
      },
    },
  })
  jwks(): ReturnType<SigningKeys['jwks']> {
    return this.keys.jwks();
  }

  @Get('oauth-authorization-server')
  @Header('cache-control', 'public, max-age=300')
  @ApiOperation({
    summary: 'Authorization server metadata (RFC 8414)',
    description:
      'The `issuer` (PUBLIC_URL), token, revocation and introspection endpoints, JWKS URI, the client_credentials grant, the ' +
      'client authentication methods and every scope. Cacheable for 5 minutes. Public: no token.',
  })
  metadata(): Record<string, unknown> {
    const issuer = this.config.publicUrl;
    return {
      issuer,
      token_endpoint: `${issuer}/builders/oauth/token`,
      revocation_endpoint: `${issuer}/builders/oauth/revoke`,
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      introspection_endpoint: `${issuer}/builders/oauth/introspect`,
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      response_types_supported: [],
      scopes_supported: [...APP_SCOPES],
      service_documentation: `${issuer}/docs`,
    };
  }
}
