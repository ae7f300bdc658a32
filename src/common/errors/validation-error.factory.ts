import type { ValidationError } from 'class-validator';
import { AppError, type ErrorDetail } from './app-error.js';

/** Enough to fix a request; a hostile one must not buy an error list of any size. */
const MAX_DETAILS = 20;

/**
 * Flattens class-validator's tree into `details` with paths such as `items[0].quantity`,
 * one entry per failing constraint (the first MAX_DETAILS), and summarises the first in
 * `error_description`.
 */
export function validationFailed(errors: ValidationError[]): AppError {
  const details = flatten(errors, '').slice(0, MAX_DETAILS);
  const first = details[0];
  const description = first ? `${first.field} ${first.message}` : 'Request is not valid';
  return new AppError('validation_failed', description, { details });
}

/**
 * Rules that judge what a value is (present, a string, an integer, an array...). The others
 * (bounds, lengths, patterns, formats) only mean something of a value of the right type.
 */
const TYPE_RULES = new Set([
  'isDefined',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
]);

function flatten(errors: ValidationError[], prefix: string): ErrorDetail[] {
  return errors.flatMap((error) => {
    const field = joinPath(prefix, error.property);
    const own = realFaults(error.constraints ?? {}).map((message) => ({
      field,
      message: stripProperty(message, error.property),
    }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * A field's messages, the type's first. class-validator lists a field's failed rules in the
 * order its decorators ran (bottom-up), so `"quantity": "2"` was first told "must not be greater
 * than 10000" (Max judges a non-number as failing). A value of the wrong type is told only that:
 * the bounds it "broke" are not faults of their own.
 */
function realFaults(constraints: Record<string, string>): string[] {
  const failed = Object.entries(constraints);
  const typeFaults = failed.filter(([rule]) => TYPE_RULES.has(rule));
  return (typeFaults.length > 0 ? typeFaults : failed).map(([, message]) => message);
}

function joinPath(prefix: string, property: string): string {
  if (/^\d+$/.test(property)) return `${prefix}[${property}]`;
  return prefix ? `${prefix}.${property}` : property;
}

/** class-validator messages start with the property name; the field already says it. */
function stripProperty(message: string, property: string): string {
  return message.startsWith(`${property} `) ? message.slice(property.length + 1) : message;
}
