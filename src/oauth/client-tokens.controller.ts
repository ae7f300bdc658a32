import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SCHEMES } from '../auth/openapi-security.js';
import { ApiErrors } from '../common/errors/api-error.decorator.js';
import { addressKey } from '../common/http/address-key.js';
import { validated } from '../common/http/validated.js';
import { ClientTokensService } from './client-tokens.service.js';
import { IntrospectionDto, TokenReferenceDto } from './dto/token-reference.dto.js';

const CLIENT_ERRORS = {
  invalid_request:
    'token missing, a parameter repeated or not a string, malformed JSON, or credentials sent twice',
  invalid_client:
    'unknown client, wrong secret or inactive app (`WWW-Authenticate: Basic` when Basic was used)',
  rate_limited:
    'too many failed client authentications from this address, or calls by this client (`Retry-After`)',
  payload_too_large: 'the body is over 4 KiB',
  unsupported_media_type: 'the body is neither JSON nor form-urlencoded',
};
const NO_STORE = {
  'Cache-Control': { schema: { type: 'string', enum: ['no-store'] }, required: true },
};

/** RFC 7009 and RFC 7662, with the token endpoint's client authentication and body formats. */
@ApiTags('oauth')
@Controller('builders/oauth')
export class ClientTokensController {
  constructor(private readonly tokens: ClientTokensService) {}

  @Post('revoke')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Revoke a token issued to this app (RFC 7009)',
    description:
      'The same answer, 200 with an empty body, whether or not the token was known: only a ' +
      'token issued to the authenticated app is revoked, on every instance within a second. An ' +
      'app token as by `app revoke-token`; a customer session token alone; a customer refresh ' +
      'token with its whole chain (every session of that login). Client authentication as at ' +
      'the token endpoint; limited like it.',
  })
  @ApiSecurity(SCHEMES.tokenClient)
  @ApiSecurity({})
  @ApiConsumes('application/json', 'application/x-www-form-urlencoded')
  @ApiBody({ type: TokenReferenceDto })
  @ApiOkResponse({ description: 'Revoked, or nothing to revoke: an empty body', headers: NO_STORE })
  @ApiErrors(CLIENT_ERRORS)
  async revoke(
    @Body(validated) body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    void reply.header('cache-control', 'no-store');
    const headers = await this.tokens.revoke(
      body,
      request.headers.authorization,
      callerOf(request),
    );
    void reply.headers(headers);
  }

  @Post('introspect')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Introspect a token issued to this app (RFC 7662)',
    description:
      '`{active: false}` for any token that is not a live token issued to the authenticated ' +
      'app (unknown, expired, revoked, used up, or of another app or tenant); otherwise its ' +
      'scope, client_id, type, expiry, issue time, subject and id. Client authentication as at ' +
      'the token endpoint; limited like it.',
  })
  @ApiSecurity(SCHEMES.tokenClient)
  @ApiSecurity({})
  @ApiConsumes('application/json', 'application/x-www-form-urlencoded')
  @ApiBody({ type: TokenReferenceDto })
  @ApiOkResponse({ type: IntrospectionDto, headers: NO_STORE })
  @ApiErrors(CLIENT_ERRORS)
  async introspect(
    @Body(validated) body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IntrospectionDto> {
    void reply.header('cache-control', 'no-store');
    const answer = await this.tokens.introspect(
      body,
      request.headers.authorization,
      callerOf(request),
    );
    void reply.headers(answer.headers);
    return answer.body;
  }
}

/** Failures count per caller address; IPv6 per /64 (addressKey), like the other limits. */
function callerOf(request: FastifyRequest): string {
  return addressKey(request.ip) ?? request.ip;
}
