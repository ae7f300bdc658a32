import { minorDigits } from './currency.js';
import { AppError, type ErrorDetail } from './errors/app-error.js';

/**
 * Money is held as an integer number of the currency's minor units (cents, yen, fils) in a JS
 * number; decimals appear only at the edges, through this file. No amount, price, line total or
 * order total goes beyond MAX_MINOR_UNITS (CONTRACT 3.4 says "beyond": 10^13 itself is allowed),
 * far below 2^53, so every one of them is exact as an integer and as a JSON number.
 */
export const MAX_MINOR_UNITS = 10_000_000_000_000;

const SCALE = [1, 10, 100, 1_000, 10_000];

/** A non-negative decimal ("19.99", "5", "007.50"). */
const DECIMAL = /^0*(\d+)(?:\.(\d+))?$/;

/** Whole-part digits beyond which no currency's amount stays within MAX_MINOR_UNITS. */
const MAX_WHOLE_DIGITS = String(MAX_MINOR_UNITS).length;

export type ParsedAmount = { minor: number } | { problem: string };

/**
 * "19.99" or 19.99 in USD → 1999; 1200 in JPY → 1200; "1.234" in KWD → 1234. A problem (as a
 * `details` message) when it is not a non-negative amount, has more decimals than the
 * currency's minor digits (trailing zeros aside: "1200.00" is 1200 yen), or goes beyond
 * MAX_MINOR_UNITS.
 */
export function parseAmount(value: string | number, currency: string): ParsedAmount {
  const digits = minorDigits(currency);
  if (typeof value === 'number' && value > MAX_MINOR_UNITS)
    return { problem: beyondBound(currency) };
  const text = typeof value === 'number' ? plainText(value) : value.trim();
  const match = text === undefined ? null : DECIMAL.exec(text);
  if (!match) return { problem: 'must be a non-negative amount' };
  if (match[1].length > MAX_WHOLE_DIGITS) return { problem: beyondBound(currency) };
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > digits) {
    return {
      problem:
        digits === 0
          ? `must be a whole number in ${currency} (it has no minor unit)`
          : `must have at most ${digits} decimals in ${currency}`,
    };
  }
  const minor = BigInt(match[1]) * BigInt(SCALE[digits]) + BigInt(fraction.padEnd(digits, '0'));
  if (minor > BigInt(MAX_MINOR_UNITS)) return { problem: beyondBound(currency) };
  return { minor: Number(minor) };
}

/** The minor units of `value` in `currency`, or undefined when parseAmount finds a problem. */
export function toMinorUnits(value: string | number, currency: string): number | undefined {
  const parsed = parseAmount(value, currency);
  return 'minor' in parsed ? parsed.minor : undefined;
}

/**
 * The amounts of a request in `currency`'s minor units, once its tenant's currency is known,
 * or 400 `validation_failed` naming every bad field, in the shape of DTO errors.
 */
export function requireAmounts(
  currency: string,
  amounts: ReadonlyArray<{ field: string; value: string | number }>,
): number[] {
  const details: ErrorDetail[] = [];
  const minor = amounts.map(({ field, value }) => {
    const parsed = parseAmount(value, currency);
    if ('minor' in parsed) return parsed.minor;
    details.push({ field, message: parsed.problem });
    return 0;
  });
  if (details.length > 0) throw amountsRefused(details);
  return minor;
}

/** 400 `validation_failed` for amounts that break a money rule, the first one in the summary. */
export function amountsRefused(details: ErrorDetail[]): AppError {
  return new AppError('validation_failed', `${details[0].field} ${details[0].message}`, {
    details: details.slice(0, 20),
  });
}

/** MAX_MINOR_UNITS in words, where the currency is not at hand. */
export const BOUND_TEXT = '10^13 minor units of the currency (100000000000.00 in a two-digit one)';

/** The message for an amount past MAX_MINOR_UNITS. */
export function beyondBound(currency: string): string {
  return `must not go beyond ${formatAmount(MAX_MINOR_UNITS, currency)} ${currency} (10^13 minor units)`;
}

/**
 * THE one place an amount is written for a response, an event or a webhook: 1999 USD → 19.99,
 * 1200 JPY → 1200, 1234 KWD → 1.234, as a JSON number (API version 2026-11-01). The division is
 * correctly rounded, so it gives the double nearest the exact decimal, the one that decimal's
 * text parses to, and within MAX_MINOR_UNITS (at most 14 significant digits) JSON prints that
 * text (money.spec.ts checks it over the whole range). Version 2026-12-01 will write
 * formatAmount's string here instead.
 */
export function renderAmount(minor: number, currency: string): number {
  return minor / SCALE[minorDigits(currency)];
}

/** An amount as exact decimal text with the currency's digits, for people: "19.90", "1200", "1.234". */
export function formatAmount(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  if (digits === 0) return String(minor);
  const text = String(minor).padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

function plainText(value: number): string | undefined {
  if (!Number.isFinite(value) || value < 0) return undefined;
  // The shortest round-trip form (19.99 → "19.99"); an exponent form (1e-7) does not match.
  return String(value);
}

/** What every amount of the API is, for the OpenAPI descriptions. */
export const AMOUNT_DOC =
  "A JSON number in the currency's major unit with at most its ISO 4217 minor digits (2 for most, 0 for JPY or KRW, 3 for KWD or BHD), exact, from 0 to 10^13 minor units (100000000000.00 in a two-digit currency)";
