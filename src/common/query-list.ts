import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn } from 'class-validator';

/**
 * A comma-separated query value (`status=paid,shipped`) → its distinct entries. A text with
 * an empty entry (`a,,b`, a trailing comma) stays as given, so validation refuses it rather
 * than reading something the client did not write. A repeated parameter never gets here:
 * it is refused at the edge (request-input.hook.ts).
 */
export const toCommaList = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const entries = value.split(',');
  return entries.some((e) => e.length === 0) ? value : [...new Set(entries)];
};

/** A query parameter listing values of `allowed`, comma-separated (`noun` names them in errors). */
export function CommaListOf(allowed: readonly string[], noun: string): PropertyDecorator {
  return applyDecorators(
    Transform(toCommaList),
    IsArray({ message: `must be a comma-separated list of ${noun}` }),
    ArrayMaxSize(allowed.length),
    IsIn(allowed, { each: true, message: `each entry must be one of: ${allowed.join(', ')}` }),
  );
}
