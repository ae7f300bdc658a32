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

function flatten(errors: ValidationError[], prefix: string): ErrorDetail[] {
  return errors.flatMap((error) => {
    const field = joinPath(prefix, error.property);
    const own = Object.values(error.constraints ?? {}).map((message) => ({
      field,
      message: stripProperty(message, error.property),
    }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

function joinPath(prefix: string, property: string): string {
  if (/^\d+$/.test(property)) return `${prefix}[${property}]`;
  return prefix ? `${prefix}.${property}` : property;
}

/** class-validator messages start with the property name; the field already says it. */
function stripProperty(message: string, property: string): string {
  return message.startsWith(`${property} `) ? message.slice(property.length + 1) : message;
}
