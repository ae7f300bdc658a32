import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';

/** A quantity of one line of the order, named by the line's `id`. */
export class LineQuantityDto {
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description: 'An `items[].id` of the order',
    example: 311,
  })
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  item_id!: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 10000, example: 1 })
  @IsInt()
  @Min(1)
  @Max(10000)
  quantity!: number;
}
