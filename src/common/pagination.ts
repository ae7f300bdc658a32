import { ApiProperty, ApiPropertyOptional, IntersectionType, PickType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/** Digits only become numbers; "1.5", "1e1", "abc" stay strings and fail @IsInt (never clamped). */
export const toStrictInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;

export class PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1, example: 1 })
  @Transform(toStrictInt)
  @IsInt()
  @Min(1)
  page = 1;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20, example: 20 })
  @Transform(toStrictInt)
  @IsInt()
  @Min(1)
  @Max(100)
  limit = 20;
}

export class PageMeta {
  @ApiProperty({ type: 'integer', example: 1 }) page!: number;
  @ApiProperty({ type: 'integer', example: 20 }) limit!: number;
  @ApiProperty({ type: 'integer', example: 137 }) total!: number;
  @ApiProperty({ type: 'integer', description: 'ceil(total / limit)', example: 7 })
  total_pages!: number;
}

/** Where a walk goes on: in both modes of a list that can be walked with cursors. */
class CursorFields {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass as `cursor` to continue after this page; null when nothing can follow',
    example:
      'eyJ2IjoxLCJzIjoiLWNyZWF0ZWRfYXQiLCJmIjp7fSwiayI6IjIwMjYtMTEtMjNUMTA6MTU6MDAuMDAwMDAwWiIsImkiOjQyfQ',
  })
  next_cursor!: string | null;
  @ApiProperty({ description: 'More items follow this page now', example: true })
  has_more!: boolean;
}

/** Page mode of such a list: PageMeta, and where to go on. */
export class PageWithCursorMeta extends IntersectionType(PageMeta, CursorFields) {}

/** Cursor mode: no count, so every page costs the same however long the list is. */
export class CursorMeta extends IntersectionType(PickType(PageMeta, ['limit']), CursorFields) {}

export interface Page<T> {
  data: T[];
  meta: PageMeta;
}

export function toPage<T>(data: T[], total: number, query: PageQuery): Page<T> {
  return {
    data,
    meta: {
      page: query.page,
      limit: query.limit,
      total,
      total_pages: Math.ceil(total / query.limit),
    },
  };
}

export function offsetOf(query: PageQuery): number {
  return (query.page - 1) * query.limit;
}
