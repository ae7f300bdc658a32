import { applyDecorators, type Type as ClassType } from '@nestjs/common';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsObject,
  IsString,
  registerDecorator,
  type ValidationArguments,
  ValidateNested,
} from 'class-validator';
import { hasCharLength } from './char-length.js';
import { isPlainRecord } from './http/validated.js';
import { isFreeText, singleLineFault } from './string-rules.js';
import { isRfc3339DateTime } from './rfc3339.js';

/** What a date-time parameter looks like, for messages and examples. */
export const INSTANT_EXAMPLE = '2026-01-02T03:04:05.123456+02:00';

/** A strict RFC 3339 date-time (rfc3339.ts). */
export function IsDateTime(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'rfc3339',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `must be an RFC 3339 date-time such as ${INSTANT_EXAMPLE} (at most 6 fractional digits)`,
      },
      validator: { validate: isRfc3339DateTime },
    });
}

/** A nested object validated as `type` (arrays, strings and null refused). */
export function NestedObject(type: () => ClassType): PropertyDecorator {
  return applyDecorators(IsObject(), ValidateNested(), Type(type));
}

/**
 * An array of `min`..`max` objects, each validated as `type`. `IsObject({ each })` refuses
 * elements that are arrays, strings or null: class-transformer would otherwise turn `[[]]`
 * into a line with no fields that no nested rule looks at.
 */
export function NestedArray(type: () => ClassType, min: number, max: number): PropertyDecorator {
  return applyDecorators(
    IsArray(),
    ArrayMinSize(min),
    ArrayMaxSize(max),
    IsObject({ each: true, message: 'each element must be an object' }),
    ValidateNested({ each: true }),
    Type(type),
  );
}

/** A value `check` accepts, else `message`. */
export function Satisfies(check: (value: unknown) => boolean, message: string): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'satisfies',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message },
      validator: { validate: check },
    });
}

/** A string of `min`..`max` characters counted as PostgreSQL counts them (code points). */
export function Chars(min: number, max: number): PropertyDecorator {
  const rule: PropertyDecorator = (target, propertyName) => {
    registerDecorator({
      name: 'chars',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `must be ${min} to ${max} characters` },
      validator: {
        validate: (value: unknown) => typeof value === 'string' && hasCharLength(value, min, max),
      },
    });
  };
  return applyDecorators(IsString(), rule);
}

const SINGLE_LINE_MESSAGES = {
  control: 'must be on one line, without control characters',
  blank: 'must not be blank',
} as const;

/**
 * A single-line string of `min`..`max` code points (names, addresses, sku, tags, reasons,
 * tracking, references: docs/BEHAVIOUR.md#limits): no control characters, line breaks or
 * tabs, and not blank. Length faults keep `@Chars`' message; the others name their fault.
 */
export function Line(min: number, max: number): PropertyDecorator {
  const rule: PropertyDecorator = (target, propertyName) => {
    registerDecorator({
      name: 'singleLine',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (args: ValidationArguments) => {
          const fault = singleLineFault(args.value, min, max);
          return fault === 'control' || fault === 'blank' ? SINGLE_LINE_MESSAGES[fault] : '';
        },
      },
      validator: {
        // A length fault is `@Chars`' to report, once.
        validate: (value: unknown) => {
          const fault = singleLineFault(value, min, max);
          return fault === undefined || fault === 'length';
        },
      },
    });
  };
  return applyDecorators(Chars(min, max), rule);
}

/** Free text of `min`..`max` code points (notes): line breaks and tabs allowed, no other control character. */
export function Text(min: number, max: number): PropertyDecorator {
  const rule: PropertyDecorator = (target, propertyName) => {
    registerDecorator({
      name: 'freeText',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: 'must not contain control characters other than line breaks and tabs' },
      validator: {
        validate: (value: unknown) =>
          typeof value !== 'string' ||
          !hasCharLength(value, min, max) ||
          isFreeText(value, min, max),
      },
    });
  };
  return applyDecorators(Chars(min, max), rule);
}

/**
 * A free-form object of string keys (order metadata), taken with every key as sent.
 * class-transformer rebuilds a nested object key by key and skips each key that names a
 * function on a new object (`toString`, `valueOf`, `__defineGetter__`…): such keys vanished
 * from a PATCH that still answered 200. The sent object is copied onto one without a
 * prototype instead, where every key is an entry like any other. Anything else is passed on
 * as it is, for the property's validator to refuse.
 */
export function KeysAsSent(): PropertyDecorator {
  return Transform(({ obj, key }) => recordAsSent((obj as Record<string, unknown>)[key]), {
    toClassOnly: true,
  });
}

function recordAsSent(value: unknown): unknown {
  if (!isPlainRecord(value)) return value;
  const copy = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value)) copy[key] = value[key];
  return copy;
}
