import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromMinorUnits, toMinorUnits } from './money.js';

describe('money', () => {
  it.each([
    ['19.99', 1999],
    ['0.10', 10],
    ['0.1', 10],
    ['5', 500],
    ['0', 0],
    [19.99, 1999],
    [0.1, 10],
    [1e3, 100000],
  ])('%s → %d minor units', (value, minor) => {
    expect(toMinorUnits(value)).toBe(minor);
  });

  it.each([
    '1.999',
    '-1',
    'abc',
    '',
    '1e3',
    '1.',
    '.5',
    ' ',
    0.001,
    -5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ])('rejects %s', (value) => {
    expect(toMinorUnits(value)).toBeUndefined();
  });

  it('formats back to at most two decimals', () => {
    expect(fromMinorUnits(1999)).toBe(19.99);
    expect(fromMinorUnits(30)).toBe(0.3);
    expect(fromMinorUnits(5997)).toBe(59.97);
    expect(fromMinorUnits(0)).toBe(0);
  });

  it('prints every amount as its two-decimal text, up to the largest exact one', () => {
    const minor = fc.oneof(
      fc.integer({ min: 0, max: 1_000_000 }),
      fc.maxSafeNat(),
      fc.constantFrom(1, 5, 10, 99, 100, 101, 1005, 999_999_999_999_999, Number.MAX_SAFE_INTEGER),
    );
    fc.assert(
      fc.property(minor, (m) => {
        const whole = Math.floor(m / 100);
        const cents = String(m % 100).padStart(2, '0');
        // The shortest text of the same value: "19.99", "0.3", "5", never "0.30000000000000004".
        const expected = String(Number(`${whole}.${cents}`));
        expect(JSON.stringify(fromMinorUnits(m))).toBe(expected);
        expect(toMinorUnits(fromMinorUnits(m))).toBe(m <= 999_999_999_999_999 ? m : undefined);
      }),
      { numRuns: 20_000 },
    );
  });
});
