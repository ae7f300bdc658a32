import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, Matches, Max, Min, ValidateIf } from 'class-validator';
import { IsMoneyAmount } from '../../common/money.validator.js';
import { Line, NestedObject } from '../../common/validation.js';
import { MAX_STOCK } from '../product-input.js';
import { AMOUNT_DOC } from '../../common/money.js';

/** A sku made through the API (the CLI's imports accept any 1–100 characters). */
export const API_SKU = /^[A-Za-z0-9._-]{1,64}$/;

export class NewInventoryDto {
  @ApiProperty({ description: 'Whether orders take stock of the product', example: true })
  @IsBoolean()
  tracked!: boolean;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_STOCK, default: 0 })
  @ValidateIf((dto: NewInventoryDto) => dto.available !== undefined)
  @IsInt()
  @Min(0)
  @Max(MAX_STOCK)
  available?: number;
}

export class CreateProductDto {
  @ApiProperty({ pattern: API_SKU.source, example: 'TSHIRT-BLK-M' })
  @Matches(API_SKU, { message: 'must be 1 to 64 characters of A-Z, a-z, 0-9, ".", "_" and "-"' })
  sku!: string;

  @ApiProperty({ minLength: 1, maxLength: 200, example: 'T-shirt, black, M' })
  @Line(1, 200)
  name!: string;

  @ApiProperty({
    description: `In the tenant currency. ${AMOUNT_DOC}; more digits or more than the bound → 400 \`validation_failed\``,
    example: 19.99,
  })
  @IsMoneyAmount()
  price!: number;

  @ApiPropertyOptional({ type: Boolean, default: true })
  @ValidateIf((dto: CreateProductDto) => dto.active !== undefined)
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({
    type: NewInventoryDto,
    description: 'Left out: not tracked (never short) until the first inventory call',
  })
  @ValidateIf((dto: CreateProductDto) => dto.inventory !== undefined)
  @NestedObject(() => NewInventoryDto)
  inventory?: NewInventoryDto;
}

export class PatchProductDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @ValidateIf((dto: PatchProductDto) => dto.name !== undefined)
  @Line(1, 200)
  name?: string;

  @ApiPropertyOptional({
    description: `The price of new orders (existing orders keep theirs). ${AMOUNT_DOC}`,
    example: 17.5,
  })
  @ValidateIf((dto: PatchProductDto) => dto.price !== undefined)
  @IsMoneyAmount()
  price?: number;

  @ApiPropertyOptional({ type: Boolean, description: 'Inactive products cannot be ordered' })
  @ValidateIf((dto: PatchProductDto) => dto.active !== undefined)
  @IsBoolean()
  active?: boolean;
}

export class InventoryChangeDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: -MAX_STOCK,
    maximum: MAX_STOCK,
    description:
      'Added to `available` (a delivery, or a negative count correction; may leave it below 0). Exactly one of `adjustment` and `available`',
    example: 24,
  })
  @ValidateIf((dto: InventoryChangeDto) => dto.adjustment !== undefined)
  @IsInt()
  @Min(-MAX_STOCK)
  @Max(MAX_STOCK)
  adjustment?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_STOCK,
    description: 'A count: `available` becomes this. Exactly one of `adjustment` and `available`',
    example: 40,
  })
  @ValidateIf((dto: InventoryChangeDto) => dto.available !== undefined)
  @IsInt()
  @Min(0)
  @Max(MAX_STOCK)
  available?: number;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    description: 'Why (a delivery note, a count): carried by the event as `data.note`',
    example: 'Delivery 2026-11-27',
  })
  @IsOptional()
  @Line(1, 200)
  reason?: string;
}
