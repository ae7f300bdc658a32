import { describe, expect, it } from 'vitest';
import { fromMinorUnits, toMinorUnits } from '../common/money.js';
import { priceLines } from './pricing.js';

const line = (price: string, quantity: number) => ({
  productId: 1,
  sku: 'S',
  name: 'N',
  quantity,
  unitPriceMinor: toMinorUnits(price)!,
});

describe('priceLines', () => {
  it('0.10 × 3 = 0.30 and 19.99 × 3 = 59.97 exactly', () => {
    const { lines, totalMinor } = priceLines([line('0.10', 3), line('19.99', 3)]);
    expect(lines.map((l) => fromMinorUnits(l.totalMinor))).toEqual([0.3, 59.97]);
    expect(fromMinorUnits(totalMinor)).toBe(60.27);
  });

  it('sums 100 lines exactly', () => {
    const lines = Array.from({ length: 100 }, (_, i) =>
      line(`${i}.${String(i % 100).padStart(2, '0')}`, (i % 7) + 1),
    );
    const priced = priceLines(lines);
    expect(priced.totalMinor).toBe(priced.lines.reduce((sum, l) => sum + l.totalMinor, 0));
    expect(Number.isInteger(priced.totalMinor)).toBe(true);
  });

  it('refuses a total beyond exact numbers instead of rounding', () => {
    expect(() => priceLines([line('9999999999999.99', 10000)])).toThrow(/too large/);
  });
});
