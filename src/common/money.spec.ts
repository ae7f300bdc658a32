import { describe, expect, it } from 'vitest';
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
});
