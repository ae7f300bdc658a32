import { ApiProperty } from '@nestjs/swagger';
import { DataExportRequestDto } from './data-export.dto.js';

export class ErasureRequestDto extends DataExportRequestDto {}

export class ErasureDto {
  @ApiProperty({
    description:
      'HMAC-SHA-256 (hex) under the server pepper of the tenant and the lower-case email: all the ' +
      'audit log keeps of the request; the same email gives the same hash',
    example: '9f2c…',
  })
  email_hash!: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The erased registered customer, or null when the email had none',
    example: 17,
  })
  customer_id!: number | null;

  @ApiProperty({
    type: 'integer',
    description: 'Orders whose person was removed by this request',
    example: 3,
  })
  orders_redacted!: number;
}
