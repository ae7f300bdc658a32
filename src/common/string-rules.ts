import { isURL } from 'class-validator';
import { hasCharLength } from './char-length.js';

/**
 * What a single-line string may not hold (docs/BEHAVIOUR.md#limits): the C0 and C1 control
 * characters (U+0000–U+001F, U+007F–U+009F: line breaks, tabs, escapes, NEL) and the Unicode
 * line and paragraph separators, which break a line as well as LF does.
 */
// oxlint-disable-next-line no-control-regex -- control characters are what it finds
const NOT_ON_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** What free text (a note) may not hold: control characters other than tab, LF and CR. */
// oxlint-disable-next-line no-control-regex -- control characters are what it finds
const NOT_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/**
 * Nothing to see: white space and characters that render as nothing (zero-width space and
 * joiners, soft hyphen, the Hangul fillers, BOM), alone or together.
 */
const BLANK = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}]*$/u;

export type SingleLineFault = 'length' | 'control' | 'blank';

/**
 * Why `value` is not a single-line string of `min`..`max` code points (names, addresses,
 * sku, tags, reasons, tracking, references), or undefined when it is one.
 */
export function singleLineFault(
  value: unknown,
  min: number,
  max: number,
): SingleLineFault | undefined {
  if (typeof value !== 'string' || !hasCharLength(value, min, max)) return 'length';
  if (NOT_ON_ONE_LINE.test(value)) return 'control';
  if (value.length > 0 && BLANK.test(value)) return 'blank';
  return undefined;
}

export function isSingleLine(value: unknown, min: number, max: number): value is string {
  return singleLineFault(value, min, max) === undefined;
}

/** Free text of `min`..`max` code points: line breaks and tabs, no other control character. */
export function isFreeText(value: unknown, min: number, max: number): value is string {
  return typeof value === 'string' && hasCharLength(value, min, max) && !NOT_IN_TEXT.test(value);
}

/**
 * A link for people to follow (a tracking page): an absolute https URL of at most `max`
 * characters, on one line, without a user or password part (`https://user:pass@…` would
 * show credentials to every reader of the order, or pass for another host). validator.js
 * judges the URL; WHATWG's parser, which browsers follow, must see no credentials either.
 */
export function isPublicHttpsUrl(value: unknown, max: number): value is string {
  if (!isSingleLine(value, 1, max)) return false;
  if (!isURL(value, { protocols: ['https'], require_protocol: true, disallow_auth: true })) {
    return false;
  }
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}
