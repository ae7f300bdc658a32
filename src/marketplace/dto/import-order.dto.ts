import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { Line, NestedArray, NestedObject } from '../../common/validation.js';
import { IsMoneyAmount } from '../../common/money.validator.js';
import {
  GUEST_CUSTOMER_EXAMPLE,
  OrderCustomerInput,
  ShippingAddressInput,
} from '../../orders/dto/create-order.dto.js';
import { AMOUNT_DOC } from '../../common/money.js';

export class ImportItemInput {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'TSHIRT-BLK-M' })
  @Line(1, 100)
  sku!: string;

  @ApiProperty({ minLength: 1, maxLength: 200, example: 'T-shirt, black, M' })
  @Line(1, 200)
  name!: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 10000, example: 3 })
  @IsInt()
  @Min(1)
  @Max(10000)
  quantity!: number;

  @ApiProperty({ description: `In the tenant currency. ${AMOUNT_DOC}`, example: 19.99 })
  @IsMoneyAmount()
  unit_price!: number;

  @ApiProperty({
    description: `Must equal unit_price × quantity exactly; the order total (the sum of these) may not go beyond 10^13 minor units either (400 \`validation_failed\` at once). ${AMOUNT_DOC}`,
    example: 59.97,
  })
  @IsMoneyAmount()
  total!: number;

  @ApiPropertyOptional({
    type: 'integer',
    description: 'Informational; the line is linked to the catalog by sku',
    example: 1,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  product_id?: number;
}

export class ImportOrderDto {
  @ApiProperty({ pattern: '^[a-z0-9_-]{1,50}$', example: 'trendyol' })
  @IsString()
  @Matches(/^[a-z0-9_-]{1,50}$/, { message: 'must be 1 to 50 characters of a-z, 0-9, _ and -' })
  marketplace!: string;

  @ApiProperty({ minLength: 1, maxLength: 100, example: 'TY-10472285' })
  @Line(1, 100)
  external_order_id!: string;

  @ApiProperty({ type: OrderCustomerInput, example: GUEST_CUSTOMER_EXAMPLE })
  @NestedObject(() => OrderCustomerInput)
  customer!: OrderCustomerInput;

  @ApiProperty({ type: ShippingAddressInput })
  @NestedObject(() => ShippingAddressInput)
  shipping_address!: ShippingAddressInput;

  @ApiProperty({ type: [ImportItemInput], minItems: 1, maxItems: 100 })
  @NestedArray(() => ImportItemInput, 1, 100)
  items!: ImportItemInput[];
}

export const IMPORT_STATUSES = ['queued', 'processing', 'imported', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

export class ImportAckDto {
  @ApiProperty({ enum: ['queued'], example: 'queued' }) status!: 'queued';
  @ApiProperty({ example: 'TY-10472285' }) external_order_id!: string;
}

export class ImportStatusDto {
  @ApiProperty({ enum: IMPORT_STATUSES, example: 'imported' }) status!: ImportStatus;
  @ApiProperty({ example: 'trendyol' }) marketplace!: string;
  @ApiProperty({ example: 'TY-10472285' }) external_order_id!: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The created order once imported',
    example: 42,
  })
  order_id!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the last attempt failed',
    example: 'the order could not be written (database error 40P01)',
  })
  error!: string | null;
  @ApiProperty({ type: 'integer', description: 'Processing attempts so far', example: 2 })
  attempts!: number;
}
