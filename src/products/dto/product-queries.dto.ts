import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { QueryInt } from '../../common/pagination.js';
import { Chars, IsDateTime } from '../../common/validation.js';

/** `true` and `false` become booleans; anything else stays as given and is refused. */
const toBoolean = ({ value }: { value: unknown }): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

/** `GET /v1/products`. `page` has no default: combining it with `cursor` is an error. */
export class ListProductsQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    default: 1,
    description: 'Page mode (with `meta.total`); not combinable with `cursor`',
  })
  @IsOptional()
  @QueryInt(1)
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
  @QueryInt(1, 100)
  limit = 20;

  @ApiPropertyOptional({
    description:
      'A `meta.next_cursor` from an earlier page: the walk continues after it, with its filters (omit them, or repeat them unchanged)',
  })
  @IsOptional()
  @IsString()
  cursor?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100, description: 'Exactly this sku' })
  @IsOptional()
  @Chars(1, 100)
  sku?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Only active or inactive ones' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'must be true or false' })
  active?: boolean;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: '2026-01-01T00:00:00Z',
    description: 'Products changed (stock included) at or after this instant',
  })
  @IsOptional()
  @IsDateTime()
  updated_after?: string;
}
