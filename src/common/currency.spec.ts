import { describe, expect, it } from 'vitest';
import { isCurrencyCode, MAX_MINOR_DIGITS, minorDigits } from './currency.js';

describe('currency', () => {
  it.each([
    ['USD', 2],
    ['EUR', 2],
    ['TRY', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['KWD', 3],
    ['BHD', 3],
    // Where CLDR (and so Intl.NumberFormat) differs from ISO 4217, ISO wins (CONTRACT 3.4).
    ['IQD', 3],
    ['HUF', 2],
    ['IDR', 2],
  ])('%s has %d minor digits (ISO 4217)', (code, digits) => {
    expect(minorDigits(code)).toBe(digits);
  });

  it('gives a code outside the list the 2 digits amounts were stored with before', () => {
    expect(minorDigits('HRK')).toBe(2);
  });

  it.each(['USD', 'JPY', 'KWD', 'EUR'])('takes %s as a tenant currency', (code) => {
    expect(isCurrencyCode(code)).toBe(true);
  });

  it.each(['usd', 'ZZZ', 'HRK', 'XAU', 'XTS', 'CLF', 'US', 'USDD', ''])('refuses %s', (code) => {
    expect(isCurrencyCode(code)).toBe(false);
  });

  it('lets DTOs through amounts of at most 3 decimals', () => {
    expect(MAX_MINOR_DIGITS).toBe(3);
  });
});
