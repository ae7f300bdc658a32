import { describe, expect, it } from 'vitest';
import { AppError } from '../common/errors/app-error.js';
import { parseProductCsv } from './product-csv.js';

describe('parseProductCsv', () => {
  it('parses rows with exact prices and an optional active column', () => {
    const csv = parseProductCsv(
      'sku,name,price,active\nA-1,"Mug, large",19.99,false\nB-2,Cap,5,\n',
      'USD',
    );
    expect(csv.hasActiveColumn).toBe(true);
    expect(csv.rows).toEqual([
      { sku: 'A-1', name: 'Mug, large', priceMinor: 1999, active: false },
      { sku: 'B-2', name: 'Cap', priceMinor: 500, active: undefined },
    ]);
  });

  it('accepts columns in any order and a BOM', () => {
    const csv = parseProductCsv('\uFEFFprice,sku,name\n1.50,X,Thing\n', 'USD');
    expect(csv.rows).toEqual([{ sku: 'X', name: 'Thing', priceMinor: 150, active: undefined }]);
    expect(csv.hasActiveColumn).toBe(false);
  });

  it('reports every bad row with its line number and imports nothing', () => {
    const text = 'sku,name,price\nA,ok,1.00\nB,bad price,1.999\n,no sku,2\nA,dup,3\n';
    expect(() => parseProductCsv(text, 'USD')).toThrow(AppError);
    expect(() => parseProductCsv(text, 'USD')).toThrow(
      /line 3: price must have at most 2 decimals in USD/,
    );
    expect(() => parseProductCsv(text, 'USD')).toThrow(/line 4: sku must be/);
    expect(() => parseProductCsv(text, 'USD')).toThrow(/line 5: sku "A" already appears on line 2/);
  });

  it('takes prices with the currency digits and refuses more, or beyond 10^13 minor units', () => {
    const csv = parseProductCsv('sku,name,price\nA,yen,1200\nB,yen too,1500.00\n', 'JPY');
    expect(csv.rows.map((r) => r.priceMinor)).toEqual([1200, 1500]);
    expect(parseProductCsv('sku,name,price\nA,fils,1.234\n', 'KWD').rows[0].priceMinor).toBe(1234);
    expect(parseProductCsv('sku,name,price\nA,max,100000000000\n', 'USD').rows[0].priceMinor).toBe(
      10 ** 13,
    );
    const bad = 'sku,name,price\nA,ok,1\nB,half,100.5\nC,huge,10000000000001\n';
    expect(() => parseProductCsv(bad, 'JPY')).toThrow(
      /line 3: price must be a whole number in JPY \(it has no minor unit\), got "100.5"/,
    );
    expect(() => parseProductCsv(bad, 'JPY')).toThrow(
      /line 4: price must not go beyond 10000000000000 JPY \(10\^13 minor units\)/,
    );
    expect(() => parseProductCsv('sku,name,price\nA,x,100000000000.01\n', 'USD')).toThrow(
      /line 2: price must not go beyond 100000000000.00 USD/,
    );
  });

  it('rejects a header without the required columns', () => {
    expect(() => parseProductCsv('code,title\nA,B\n', 'USD')).toThrow(
      /line 1: .*missing sku, name, price/,
    );
  });

  it('rejects a malformed CSV', () => {
    expect(() => parseProductCsv('sku,name,price\n"A,unterminated,1\n', 'USD')).toThrow(
      /CSV is malformed/,
    );
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'reports an active value of %j as a bad row (no inherited lookups)',
    (value) => {
      const text = `sku,name,price,active\nA,ok,1.00,true\nB,b,2.00,${value}\n`;
      expect(() => parseProductCsv(text, 'USD')).toThrow(/line 3: active must be true or false/);
    },
  );

  it('counts lengths in code points, as the database CHECK does', () => {
    const emoji = '😀'.repeat(100);
    expect(parseProductCsv(`sku,name,price\n${emoji},n,1\n`, 'USD').rows[0].sku).toBe(emoji);
    expect(() => parseProductCsv(`sku,name,price\n${'a\uFE0F'.repeat(51)},n,1\n`, 'USD')).toThrow(
      /line 2: sku must be 1 to 100 characters/,
    );
  });

  it('reports a NUL character as a bad row', () => {
    expect(() => parseProductCsv('sku,name,price\nA,na\u0000me,1\n', 'USD')).toThrow(
      /line 2: values must not contain NUL/,
    );
  });
});
