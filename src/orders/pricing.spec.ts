import { describe, expect, it } from 'vitest';
import { MAX_MINOR_UNITS, renderAmount, toMinorUnits } from '../common/money.js';
import { priceLines } from './pricing.js';

const line = (price: string, quantity: number, currency = 'USD') => ({
  productId: 1,
  sku: 'S',
  name: 'N',
  quantity,
  unitPriceMinor: toMinorUnits(price, currency)!,
});

describe('priceLines', () => {
  it('0.10 × 3 = 0.30 and 19.99 × 3 = 59.97 exactly', () => {
    const { lines, totalMinor } = priceLines([line('0.10', 3), line('19.99', 3)]);
    expect(lines.map((l) => renderAmount(l.totalMinor, 'USD'))).toEqual([0.3, 59.97]);
    expect(renderAmount(totalMinor, 'USD')).toBe(60.27);
  });

  it('sums 100 lines exactly', () => {
    const lines = Array.from({ length: 100 }, (_, i) =>
      line(`${i}.${String(i % 100).padStart(2, '0')}`, (i % 7) + 1),
    );
    const priced = priceLines(lines);
    expect(priced.totalMinor).toBe(priced.lines.reduce((sum, l) => sum + l.totalMinor, 0));
    expect(Number.isInteger(priced.totalMinor)).toBe(true);
  });

  it('takes a total of exactly 10^13 minor units', () => {
    const priced = priceLines([line('50000000000', 1), line('25000000000', 2)]);
    expect(priced.totalMinor).toBe(MAX_MINOR_UNITS);
  });

  it('refuses a line total beyond 10^13 minor units, naming the line', () => {
    expect(() => priceLines([line('1', 1), line('99999999999.99', 9)])).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        options: {
          details: [{ field: 'items[1].quantity', message: expect.stringContaining('10^13') }],
        },
      }),
    );
  });

  it('refuses an order total beyond 10^13 minor units when each line is within it', () => {
    expect(() => priceLines([line('60000000000', 1), line('40000000000.01', 1)])).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        options: { details: [{ field: 'items', message: expect.stringContaining('10^13') }] },
      }),
    );
  });
});
