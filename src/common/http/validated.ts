import { type ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { AppError } from '../errors/app-error.js';
import { validationFailed } from '../errors/validation-error.factory.js';

/**
 * A DTO class may offer a fast path: `static fastParse(value)` returns the instance the
 * ValidationPipe would make when `value` is certainly valid, and undefined for anything else
 * (invalid, or merely unusual), which the ValidationPipe then judges and answers. On the hot
 * routes class-validator and class-transformer cost 4–7 % of the CPU (docs/BENCHMARKS.md);
 * the errors, their wording and every rare shape stay theirs. Each fastParse has a
 * property-based spec that it never accepts what the pipe refuses and returns the pipe's
 * instance exactly.
 */
export interface FastParsed<T> {
  fastParse(value: unknown): T | undefined;
}

/**
 * A DTO class may also offer `static prepare(value)`: it reshapes the raw value before any
 * validation (the order list's `metadata[KEY]=VALUE` query keys into one `metadata` object).
 */
export interface Prepared {
  prepare(value: unknown): unknown;
}

function preparerOf(metatype: unknown): Prepared['prepare'] | undefined {
  const prepare = (metatype as Partial<Prepared> | undefined)?.prepare;
  return typeof prepare === 'function' ? prepare : undefined;
}

function fastParserOf(metatype: unknown): FastParsed<unknown>['fastParse'] | undefined {
  const parse = (metatype as Partial<FastParsed<unknown>> | undefined)?.fastParse;
  return typeof parse === 'function' ? parse : undefined;
}

const OPTIONS = {
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  exceptionFactory: validationFailed,
  validationError: { target: false, value: false },
};

/** Types Nest gives a parameter declared without a DTO class (`unknown`, a primitive): not validated. */
const UNVALIDATED_TYPES: ReadonlySet<unknown> = new Set([Object, Array, String, Number, Boolean]);

/**
 * A JSON body where a DTO expects an object must be one: the ValidationPipe turns `null`
 * into `{}` (so `PATCH` with `null` answered 200 and changed nothing) and would judge `[]`,
 * `7` or `"x"` field by field. No body at all is left to the DTO (every field optional, or
 * the missing ones named). Bodies read by their handler (the OAuth endpoints) keep their rules.
 */
function refuseNonObjectBody(value: unknown, metadata: ArgumentMetadata): void {
  if (metadata.type !== 'body' || value === undefined || isPlainRecord(value)) return;
  if (typeof metadata.metatype !== 'function' || UNVALIDATED_TYPES.has(metadata.metatype)) return;
  throw new AppError('validation_failed', 'The body must be a JSON object', {
    details: [{ field: 'body', message: 'must be a JSON object' }],
  });
}

class ValidationWithFastPath extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    refuseNonObjectBody(value, metadata);
    const prepare = preparerOf(metadata.metatype);
    const input = prepare ? prepare(value) : value;
    const parsed = fastParserOf(metadata.metatype)?.(input);
    return parsed !== undefined ? parsed : super.transform(input, metadata);
  }
}

/**
 * The validation of every `@Body`, `@Query` and `@Param` (`@Body(validated)`): whitelisted,
 * unknown fields refused, transformed into the DTO class, errors in the shape of
 * docs/BEHAVIOUR.md#errors.
 *
 * Per parameter, not global: a global pipe also runs on every custom parameter decorator
 * (`@Ctx`, `@IdParam`), where it has nothing to do but costs Nest two async pipe chains on
 * every request. validated.spec.ts fails for a route parameter without it.
 */
export const validated = new ValidationWithFastPath(OPTIONS);

/** What the ValidationPipe alone makes of a value, for the fast paths' specs to compare with. */
export const validatedWithoutFastPath = new ValidationPipe(OPTIONS);

/**
 * A JSON object as JSON.parse or a query parser makes it (no class, no array): Object's
 * prototype, none, or an empty prototype-less one (fast-querystring, Fastify's parser, makes
 * its objects from a constructor whose prototype is `Object.create(null)`).
 */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return (
    proto === Object.prototype ||
    proto === null ||
    (Object.getPrototypeOf(proto) === null && Reflect.ownKeys(proto as object).length === 0)
  );
}

/** Every own key of `value` is one of `allowed`. */
export function hasOnlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key of Object.keys(value)) if (!allowed.has(key)) return false;
  return true;
}
