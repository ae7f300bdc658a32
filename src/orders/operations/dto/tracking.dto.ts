import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { isPublicHttpsUrl } from '../../../common/string-rules.js';
import { Line, Satisfies } from '../../../common/validation.js';

/** Where a shipment can be followed. */
export class TrackingDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'UPS' })
  @Line(1, 100)
  company!: string;

  @ApiProperty({ minLength: 1, maxLength: 100, example: '1Z999AA10123456784' })
  @Line(1, 100)
  number!: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    format: 'uri',
    maxLength: 2000,
    description: 'https only, without a user or password part',
    example: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
  })
  @IsOptional()
  @Satisfies(
    (value) => isPublicHttpsUrl(value, 2000),
    'must be an https URL of at most 2000 characters, without a user or password part',
  )
  url?: string | null;
}
