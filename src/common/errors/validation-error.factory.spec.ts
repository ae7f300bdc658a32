import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { validatedWithoutFastPath } from '../http/validated.js';
import { Chars, NestedArray } from '../validation.js';
import { AppError } from './app-error.js';

class Line {
  @IsInt()
  @Min(1)
  @Max(10000)
  quantity!: number;
}

class Body {
  @IsOptional()
  @Chars(1, 20)
  name?: string;

  @NestedArray(() => Line, 1, 5)
  items!: Line[];
}

/** The error the shared validation makes of `value` as a `Body`. */
async function refusal(value: unknown): Promise<AppError> {
  const error: unknown = await validatedWithoutFastPath
    .transform(value, { type: 'body', metatype: Body })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('validation errors: the real fault first', () => {
  it('a value of the wrong type is told its type, not the bounds it cannot be judged by', async () => {
    const error = await refusal({ items: [{ quantity: '2' }] });
    expect(error.description).toBe('items[0].quantity must be an integer number');
    expect(error.options.details).toEqual([
      { field: 'items[0].quantity', message: 'must be an integer number' },
    ]);
  });

  it('a string rule on a number says "string" first, for every field in order', async () => {
    const error = await refusal({ name: 5, items: [{ quantity: 1 }, { quantity: 'x' }] });
    expect(error.description).toBe('name must be a string');
    expect(error.options.details).toEqual([
      { field: 'name', message: 'must be a string' },
      { field: 'items[1].quantity', message: 'must be an integer number' },
    ]);
  });

  it('a value of the right type is told the bound it breaks', async () => {
    const error = await refusal({ name: '', items: [{ quantity: 10001 }] });
    expect(error.options.details).toEqual([
      { field: 'name', message: 'must be 1 to 20 characters' },
      { field: 'items[0].quantity', message: 'must not be greater than 10000' },
    ]);
  });
});
