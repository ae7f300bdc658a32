import { AppError } from '../common/errors/app-error.js';

const PRINTABLE = /^[\x20-\x7e]{1,255}$/;
/** RFC 8941 sf-string: quotes around printable ASCII with \" and \\ escapes. */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;

/**
 * The Idempotency-Key header (docs/BEHAVIOUR.md#idempotency): 1–255 printable ASCII characters, or
 * the structured-field quoted form of such a string. Undefined when absent.
 */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) throw malformed('must be sent once');
  const quoted = SF_STRING.exec(header);
  const key = quoted ? quoted[1].replace(/\\(["\\])/g, '$1') : header;
  if (!PRINTABLE.test(key)) throw malformed('must be 1 to 255 printable ASCII characters');
  return key;
}

function malformed(message: string): AppError {
  return new AppError('validation_failed', `Idempotency-Key ${message}`, {
    details: [{ field: 'Idempotency-Key', message }],
  });
}
