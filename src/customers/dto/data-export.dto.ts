import { ApiProperty } from '@nestjs/swagger';
import { IsEmail } from 'class-validator';
import { Chars } from '../../common/validation.js';
import { OrderDto } from '../../orders/dto/order.dto.js';
import { FulfillmentDto, RefundDto } from '../../orders/operations/dto/operations-output.dto.js';
import { CustomerDto } from './customer.dto.js';

export class DataExportRequestDto {
  @ApiProperty({ format: 'email', example: 'ada@example.com' })
  @IsEmail()
  @Chars(3, 254)
  email!: string;
}

export class ExportedOrderDto extends OrderDto {
  @ApiProperty({ type: [FulfillmentDto], description: 'Oldest first' })
  fulfillments!: FulfillmentDto[];
  @ApiProperty({ type: [RefundDto], description: 'Oldest first' })
  refunds!: RefundDto[];
}

export class ExportedImportDto {
  @ApiProperty({ enum: ['queued', 'processing', 'failed'] }) status!: string;
  @ApiProperty({ example: 'trendyol' }) marketplace!: string;
  @ApiProperty({ example: 'TY-10001' }) external_order_id!: string;
  @ApiProperty({ type: 'integer', nullable: true, example: null }) order_id!: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'product 42 is not in the catalog' })
  error!: string | null;
  @ApiProperty({ type: 'integer', example: 1 }) attempts!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The import request as it was received (customer, shipping address, items)',
  })
  payload!: unknown;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class DataExportDto {
  @ApiProperty({ example: 'ada@example.com', description: 'As asked' }) email!: string;
  @ApiProperty({
    type: CustomerDto,
    nullable: true,
    description: 'The registered customer with that email in the tenant (any case), or null',
  })
  customer!: CustomerDto | null;
  @ApiProperty({
    type: [ExportedOrderDto],
    description:
      'Every order of the tenant placed with that email (any case) or linked to that customer, by id, each with its fulfillments and refunds',
  })
  orders!: ExportedOrderDto[];
  @ApiProperty({
    type: [ExportedImportDto],
    description:
      'The marketplace imports of the tenant with that email (any case) that have not become an order (queued, processing or failed), by id, with their payloads',
  })
  imports!: ExportedImportDto[];
  @ApiProperty({ format: 'date-time', example: '2026-11-27T16:00:00.000Z' })
  generated_at!: string;
}
