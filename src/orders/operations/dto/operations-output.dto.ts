import { ApiProperty } from '@nestjs/swagger';
import { LineQuantityDto } from './line-quantity.dto.js';
import { TrackingDto } from './tracking.dto.js';
import { AMOUNT_DOC } from '../../../common/money.js';

export class FulfillmentDto {
  @ApiProperty({ type: 'integer', example: 7 }) id!: number;
  @ApiProperty({ type: 'integer', example: 42 }) order_id!: number;
  @ApiProperty({ type: [LineQuantityDto] }) items!: LineQuantityDto[];
  @ApiProperty({ type: TrackingDto, nullable: true }) tracking!: TrackingDto | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T11:00:00.000Z' }) created_at!: string;
  @ApiProperty({
    format: 'date-time',
    description: 'Moves when the tracking changes',
    example: '2026-11-23T12:00:00.000Z',
  })
  updated_at!: string;
}

export class RefundDto {
  @ApiProperty({ type: 'integer', example: 3 }) id!: number;
  @ApiProperty({ type: 'integer', example: 42 }) order_id!: number;
  @ApiProperty({ description: `Given back. ${AMOUNT_DOC}`, example: 19.99 }) amount!: number;
  @ApiProperty({ example: 'USD' }) currency!: string;
  @ApiProperty({ type: [LineQuantityDto], description: 'Empty for a refund of an amount alone' })
  items!: LineQuantityDto[];
  @ApiProperty({ type: String, nullable: true, example: 'Arrived damaged' }) reason!: string | null;
  @ApiProperty({ description: 'Whether the lines’ stock was given back' }) restocked!: boolean;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T11:00:00.000Z' }) created_at!: string;
}

export class FulfillmentListDto {
  @ApiProperty({ type: [FulfillmentDto], description: 'Oldest first' }) data!: FulfillmentDto[];
}

export class RefundListDto {
  @ApiProperty({ type: [RefundDto], description: 'Oldest first' }) data!: RefundDto[];
}
