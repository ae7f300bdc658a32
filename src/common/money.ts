/**
 * Money is held as integer hundredths ("minor units") in a JS number: exact for every amount
 * below 2^53 / 100, i.e. 90 trillion. Decimal strings or numbers appear only at the edges.
 */
const DECIMAL = /^(\d{1,13})(?:\.(\d{1,2}))?$/;

/** "19.99", 19.99, "5" → 1999, 1999, 500; undefined when not a non-negative amount with <= 2 decimals. */
export function toMinorUnits(value: string | number): number | undefined {
  const text = typeof value === 'number' ? numberToPlainString(value) : value.trim();
  const match = text === undefined ? null : DECIMAL.exec(text);
  if (!match) return undefined;
  const fraction = (match[2] ?? '').padEnd(2, '0');
  return Number(match[1]) * 100 + Number(fraction);
}

/**
 * 1999 → 19.99 as a JSON number (never more than 2 decimals). The division is rounded to the
 * double nearest the exact quotient, which is the double the two-decimal text parses to, so
 * JSON prints that text (money.spec.ts checks it over the whole range, with no toFixed).
 */
export function fromMinorUnits(minor: number): number {
  return minor / 100;
}

function numberToPlainString(value: number): string | undefined {
  if (!Number.isFinite(value) || value < 0) return undefined;
  // Shortest round-trip form, e.g. 19.99 → "19.99"; 1e21 → exponent form, rejected above.
  return String(value);
}
