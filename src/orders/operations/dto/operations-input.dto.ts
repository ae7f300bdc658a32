import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsPositive, ValidateIf } from 'class-validator';
import { IsMoneyAmount } from '../../../common/money.validator.js';
import { Line, NestedArray, NestedObject, Text } from '../../../common/validation.js';
import { CANCEL_REASONS, type CancelReason } from '../../order-operations.js';
import { LineQuantityDto } from './line-quantity.dto.js';
import { TrackingDto } from './tracking.dto.js';
import { AMOUNT_DOC } from '../../../common/money.js';

export class CancelOrderDto {
  @ApiProperty({ enum: CANCEL_REASONS, example: 'customer' })
  @IsIn(CANCEL_REASONS)
  reason!: CancelReason;

  @ApiPropertyOptional({ maxLength: 500, example: 'Ordered the wrong size' })
  @IsOptional()
  @Text(0, 500)
  note?: string;

  @ApiPropertyOptional({
    type: Boolean,
    description: 'Give the lines’ stock back (products that track stock); true when left out',
  })
  @IsOptional()
  @IsBoolean()
  restock?: boolean;
}

export class CreateFulfillmentDto {
  @ApiPropertyOptional({
    type: [LineQuantityDto],
    minItems: 1,
    maxItems: 100,
    description: 'The lines shipped; without it, every quantity left unfulfilled ships',
  })
  @ValidateIf((dto: CreateFulfillmentDto) => dto.items !== undefined)
  @NestedArray(() => LineQuantityDto, 1, 100)
  items?: LineQuantityDto[];

  @ApiPropertyOptional({ type: TrackingDto })
  @IsOptional()
  @NestedObject(() => TrackingDto)
  tracking?: TrackingDto;
}

export class UpdateFulfillmentDto {
  @ApiProperty({
    type: TrackingDto,
    nullable: true,
    description: 'Replaces the whole tracking object; null removes it',
  })
  @ValidateIf((dto: UpdateFulfillmentDto) => dto.tracking !== null)
  @NestedObject(() => TrackingDto)
  tracking!: TrackingDto | null;
}

export class CreateRefundDto {
  @ApiPropertyOptional({
    description: `Greater than 0; defaults to the value of \`items\` (unit price × quantity). ${AMOUNT_DOC}; more digits than the order's currency has → 400 \`validation_failed\``,
    example: 19.99,
  })
  // Not IsOptional: that would let null through (absent is the only way to leave it out).
  @ValidateIf((dto: CreateRefundDto) => dto.amount !== undefined)
  @IsMoneyAmount()
  @IsPositive({ message: 'must be greater than 0' })
  amount?: number;

  @ApiPropertyOptional({ type: [LineQuantityDto], minItems: 1, maxItems: 100 })
  @ValidateIf((dto: CreateRefundDto) => dto.items !== undefined)
  @NestedArray(() => LineQuantityDto, 1, 100)
  items?: LineQuantityDto[];

  @ApiPropertyOptional({ minLength: 1, maxLength: 500, example: 'Arrived damaged' })
  @IsOptional()
  @Line(1, 500)
  reason?: string;

  @ApiPropertyOptional({
    type: Boolean,
    description:
      'Give the refunded lines’ stock back (products that track stock); false when left out',
  })
  @IsOptional()
  @IsBoolean()
  restock?: boolean;
}
