import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { APP_SCOPES } from '../../auth/scopes.js';

/** Client credentials in the body (client_secret_post), as every OAuth endpoint takes them. */
export class ClientCredentialsDto {
  @ApiPropertyOptional({
    description: 'Required unless sent in an Authorization: Basic header',
    example: 'app_X3qZ6YTWil-WETcK',
  })
  client_id?: string;

  @ApiPropertyOptional({
    description: 'Required unless sent in an Authorization: Basic header',
    example: 'cs_Vq3xN8bKp2LmR7tY0aZc5eWf1gHj4kDs9uQiOyXnTbE',
  })
  client_secret?: string;
}

/** Documentation only: the endpoint reads the body itself to answer OAuth error codes. */
export class TokenRequestDto extends ClientCredentialsDto {
  @ApiProperty({ enum: ['client_credentials'], example: 'client_credentials' })
  grant_type!: string;

  @ApiProperty({
    description: `Space-separated, each approved for the app: ${APP_SCOPES.join(', ')}`,
    example: 'orders:read products:read',
  })
  scope!: string;
}

export class TokenResponseDto {
  @ApiProperty({
    description: 'A JWT (ES256, `typ: at+jwt`)',
    example:
      'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6IjNxVjdyUWJ4In0.eyJpc3MiOiJodHRwOi8vbG9jYWxob3N0OjMwMDAi…',
  })
  access_token!: string;

  @ApiProperty({ enum: ['Bearer'], example: 'Bearer' })
  token_type!: 'Bearer';

  @ApiProperty({ type: 'integer', description: 'Lifetime in seconds', example: 3600 })
  expires_in!: number;

  @ApiProperty({
    description: 'Granted scopes, space-separated, duplicates collapsed',
    example: 'orders:read',
  })
  scope!: string;
}
