import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUrl, MaxLength } from 'class-validator';
import { Chars } from '../../../common/validation.js';

/** Where a shipment can be followed. */
export class TrackingDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'UPS' })
  @Chars(1, 100)
  company!: string;

  @ApiProperty({ minLength: 1, maxLength: 100, example: '1Z999AA10123456784' })
  @Chars(1, 100)
  number!: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    format: 'uri',
    maxLength: 2000,
    description: 'https only',
    example: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
  })
  @IsOptional()
  @IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'must be an https URL' })
  @MaxLength(2000)
  url?: string | null;
}
