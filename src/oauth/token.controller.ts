import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { SCHEMES } from '../auth/openapi-security.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiErrors } from '../common/errors/api-error.decorator.js';
import { addressKey } from '../common/http/address-key.js';
import { TokenRequestDto, TokenResponseDto } from './dto/token.dto.js';
import { TokenEndpointService } from './token-endpoint.service.js';
import { validated } from '../common/http/validated.js';

@ApiTags('oauth')
@Controller()
export class TokenController {
  constructor(private readonly tokens: TokenEndpointService) {}

  @Post('builders/oauth/token')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Get an access token (OAuth 2.0 client_credentials)',
    description:
      'Client authentication in the body (client_secret_post) or an `Authorization: Basic` header ' +
      '(client_secret_basic, RFC 6749 2.3.1), never both. Checks in order: grant type, presence ' +
      'of client credentials, client authentication, scope. Rate limited per client and per address. ' +
      'The access token is a JWT valid `expires_in` seconds (3600 by default) for the requested scopes.',
  })
  // Basic, or credentials in the body (the empty requirement).
  @ApiSecurity(SCHEMES.tokenClient)
  @ApiSecurity({})
  @ApiConsumes('application/json', 'application/x-www-form-urlencoded')
  @ApiBody({ type: TokenRequestDto })
  @ApiOkResponse({
    type: TokenResponseDto,
    description: 'The token; never cached (RFC 6749 5.1)',
    headers: {
      'Cache-Control': { schema: { type: 'string', enum: ['no-store'] }, required: true },
      Pragma: { schema: { type: 'string', enum: ['no-cache'] }, required: true },
    },
  })
  @ApiErrors({
    invalid_request:
      'a parameter is missing or repeated, malformed JSON, or credentials sent twice',
    unsupported_grant_type: 'grant_type is not client_credentials',
    invalid_scope: 'a requested scope is not approved for the app',
    invalid_client:
      'unknown client, wrong secret or inactive app (`WWW-Authenticate: Basic` when Basic was used)',
    rate_limited: 'too many token requests (`Retry-After`)',
    payload_too_large: 'the body is over 4 KiB',
    unsupported_media_type: 'the body is neither JSON nor form-urlencoded',
  })
  async token(
    @Body(validated) body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TokenResponseDto> {
    // Set first so that error responses carry them too (RFC 6749 5.1, 5.2).
    void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    // Failures count per caller address; IPv6 per /64 (addressKey), like the other limits.
    const caller = addressKey(request.ip) ?? request.ip;
    const response = await this.tokens.token(body, request.headers.authorization, caller);
    void reply.headers(response.headers);
    return response.body;
  }
}
