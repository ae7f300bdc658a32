import { ApiProperty, ApiPropertyOptional, IntersectionType, PickType } from '@nestjs/swagger';
import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ValidateBy, type ValidationArguments } from 'class-validator';

/**
 * Digits (with an optional minus) become numbers; "1.5", "1e1", "abc" stay strings and are
 * refused (never clamped). A negative number is parsed so that it is told the bound it breaks.
 */
export const toStrictInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value;

/**
 * An integer query parameter of `min`..`max`, as one rule with one message that fits the
 * value: separate IsInt, Min and Max rules each judged a string such as "-1" and all failed,
 * so `limit=-1` was told "must not be greater than 500".
 */
export function QueryInt(min: number, max = Number.MAX_SAFE_INTEGER): PropertyDecorator {
  const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
  return applyDecorators(
    Transform(toStrictInt),
    ValidateBy({
      name: 'queryInt',
      constraints: [min, max],
      validator: {
        validate: (value: unknown) =>
          Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max,
        defaultMessage: ({ value }: ValidationArguments) => {
          if (!Number.isSafeInteger(value)) return `must be an integer ${range}`;
          return (value as number) < min
            ? `must not be less than ${min}`
            : `must not be greater than ${max}`;
        },
      },
    }),
  );
}

export class PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1, example: 1 })
  @QueryInt(1)
  page = 1;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20, example: 20 })
  @QueryInt(1, 100)
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
