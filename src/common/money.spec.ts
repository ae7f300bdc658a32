import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from './errors/app-error.js';
import {
  formatAmount,
  MAX_MINOR_UNITS,
  parseAmount,
  renderAmount,
  requireAmounts,
  toMinorUnits,
} from './money.js';

describe('money', () => {
  it.each([
    ['19.99', 'USD', 1999],
    ['0.10', 'USD', 10],
    ['0.1', 'USD', 10],
    ['5', 'USD', 500],
    ['0', 'USD', 0],
    [' 7.5 ', 'USD', 750],
    ['007.50', 'USD', 750],
    [19.99, 'USD', 1999],
    [0.1, 'EUR', 10],
    [1e3, 'USD', 100000],
    [1200, 'JPY', 1200],
    ['1200.00', 'JPY', 1200],
    [1.234, 'KWD', 1234],
    ['1.2', 'BHD', 1200],
    [100_000_000_000, 'USD', MAX_MINOR_UNITS],
    [MAX_MINOR_UNITS, 'JPY', MAX_MINOR_UNITS],
    ['10000000000', 'KWD', MAX_MINOR_UNITS],
  ])('%s %s → %d minor units', (value, currency, minor) => {
    expect(toMinorUnits(value, currency)).toBe(minor);
  });

  it.each([
    ['1.999', 'USD', 'must have at most 2 decimals in USD'],
    [100.5, 'JPY', 'must be a whole number in JPY (it has no minor unit)'],
    [0.01, 'JPY', 'must be a whole number in JPY (it has no minor unit)'],
    [1.2345, 'KWD', 'must have at most 3 decimals in KWD'],
    ['-1', 'USD', 'must be a non-negative amount'],
    ['abc', 'USD', 'must be a non-negative amount'],
    ['', 'USD', 'must be a non-negative amount'],
    ['1e3', 'USD', 'must be a non-negative amount'],
    ['1.', 'USD', 'must be a non-negative amount'],
    ['.5', 'USD', 'must be a non-negative amount'],
    [-5, 'USD', 'must be a non-negative amount'],
    [Number.NaN, 'USD', 'must be a non-negative amount'],
    [100_000_000_000.01, 'USD', 'must not go beyond 100000000000.00 USD (10^13 minor units)'],
    [MAX_MINOR_UNITS + 1, 'JPY', 'must not go beyond 10000000000000 JPY (10^13 minor units)'],
    ['10000000000.001', 'KWD', 'must not go beyond 10000000000.000 KWD (10^13 minor units)'],
    [
      '99999999999999999999999',
      'USD',
      'must not go beyond 100000000000.00 USD (10^13 minor units)',
    ],
    [1e300, 'USD', 'must not go beyond 100000000000.00 USD (10^13 minor units)'],
  ])('refuses %s %s: %s', (value, currency, problem) => {
    expect(parseAmount(value, currency)).toEqual({ problem });
  });

  it('refuses the bad amounts of a request at once, naming each field', () => {
    let refused: unknown;
    try {
      requireAmounts('JPY', [
        { field: 'items[0].unit_price', value: 100.5 },
        { field: 'items[0].total', value: 201 },
        { field: 'items[1].total', value: 0.5 },
      ]);
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      code: 'validation_failed',
      description: 'items[0].unit_price must be a whole number in JPY (it has no minor unit)',
      options: {
        details: [
          { field: 'items[0].unit_price', message: expect.stringContaining('whole number') },
          { field: 'items[1].total', message: expect.stringContaining('whole number') },
        ],
      },
    });
    expect(requireAmounts('KWD', [{ field: 'price', value: 1.234 }])).toEqual([1234]);
  });

  it('renders with the currency digits', () => {
    expect(renderAmount(1999, 'USD')).toBe(19.99);
    expect(renderAmount(30, 'USD')).toBe(0.3);
    expect(renderAmount(1200, 'JPY')).toBe(1200);
    expect(renderAmount(1234, 'KWD')).toBe(1.234);
    expect(renderAmount(0, 'KWD')).toBe(0);
    expect(formatAmount(1990, 'USD')).toBe('19.90');
    expect(formatAmount(5, 'USD')).toBe('0.05');
    expect(formatAmount(1200, 'JPY')).toBe('1200');
    expect(formatAmount(1234, 'KWD')).toBe('1.234');
    expect(formatAmount(7, 'BHD')).toBe('0.007');
  });

  // The exact decimal of `minor` in `digits` digits, as JSON writes the number of that value.
  const exactDecimal = (minor: number, digits: number) =>
    digits === 0
      ? String(minor)
      : `${Math.floor(minor / 10 ** digits)}.${String(minor % 10 ** digits).padStart(digits, '0')}`
          .replace(/0+$/, '')
          .replace(/\.$/, '');

  it.each([
    ['JPY', 0],
    ['USD', 2],
    ['KWD', 3],
  ])(
    'writes every amount of %s (%d digits) up to 10^13 minor units as its exact decimal',
    (currency, digits) => {
      const minor = fc.oneof(
        fc.integer({ min: 0, max: MAX_MINOR_UNITS }),
        fc.integer({ min: MAX_MINOR_UNITS - 1_000_000, max: MAX_MINOR_UNITS }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom(0, 1, 5, 10, 99, 100, 101, 1005, 999_999_999_999_9, MAX_MINOR_UNITS),
      );
      fc.assert(
        fc.property(minor, (m) => {
          const json = JSON.stringify(renderAmount(m, currency));
          expect(json).toBe(exactDecimal(m, digits));
          // And back: what a client sends from that JSON is the same amount.
          expect(toMinorUnits(JSON.parse(json) as number, currency)).toBe(m);
          expect(toMinorUnits(formatAmount(m, currency), currency)).toBe(m);
        }),
        { numRuns: 20_000 },
      );
    },
  );
});
