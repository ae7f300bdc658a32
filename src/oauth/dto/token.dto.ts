import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { APP_SCOPES } from '../../auth/scopes.js';

/** Documentation only: the endpoint reads the body itself to answer OAuth error codes. */
export class TokenRequestDto {
  @ApiProperty({ enum: ['client_credentials'] })
  grant_type!: string;

  @ApiPropertyOptional({ description: 'Required unless sent in an Authorization: Basic header' })
  client_id?: string;

  @ApiPropertyOptional({ description: 'Required unless sent in an Authorization: Basic header' })
  client_secret?: string;

  @ApiProperty({
    description: `Space-separated, each approved for the app: ${APP_SCOPES.join(', ')}`,
    example: 'orders:read products:read',
  })
  scope!: string;
}

export class TokenResponseDto {
  @ApiProperty({ description: 'A JWT (ES256, `typ: at+jwt`)' })
  access_token!: string;

  @ApiProperty({ enum: ['Bearer'] })
  token_type!: 'Bearer';

  @ApiProperty({ type: 'integer', description: 'Lifetime in seconds', example: 3600 })
  expires_in!: number;

  @ApiProperty({
    description: 'Granted scopes, space-separated, duplicates collapsed',
    example: 'orders:read',
  })
  scope!: string;
}
