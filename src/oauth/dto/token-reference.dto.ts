import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ClientCredentialsDto } from './token.dto.js';

/** Documentation only: the endpoints read the body themselves to answer OAuth error codes. */
export class TokenReferenceDto extends ClientCredentialsDto {
  @ApiProperty({
    description: 'An access token (app or customer session) or a customer refresh token',
    example: 'rt_Vq3xN8bKp2LmR7tY0aZc5eWf1gHj4kDs9uQiOyXnTbE',
  })
  token!: string;

  @ApiPropertyOptional({
    enum: ['access_token', 'refresh_token'],
    description: 'Accepted and not needed: the token is found whatever its type',
  })
  token_type_hint?: string;
}

/** RFC 7662 2.2: only `active` when the token is not a live token of the caller. */
export class IntrospectionDto {
  @ApiProperty({ example: true })
  active!: boolean;

  @ApiPropertyOptional({ description: 'Granted scopes, space-separated', example: 'orders:read' })
  scope?: string;

  @ApiPropertyOptional({
    description: 'The app the token was issued to',
    example: 'app_X3qZ6YTWil-WETcK',
  })
  client_id?: string;

  @ApiPropertyOptional({ enum: ['Bearer'] })
  token_type?: 'Bearer';

  @ApiPropertyOptional({ type: 'integer', description: 'Expiry, seconds since the epoch' })
  exp?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'Issue time, seconds since the epoch' })
  iat?: number;

  @ApiPropertyOptional({
    description: 'The client_id for an app token, the customer id for a customer token',
    example: '42',
  })
  sub?: string;

  @ApiPropertyOptional({
    description:
      "The token's id: an app token's id (as `app revoke-token` takes it), a session's id, or " +
      "an id derived from a refresh token's stored hash",
  })
  jti?: string;
}
