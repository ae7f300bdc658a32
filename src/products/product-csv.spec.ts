import { describe, expect, it } from 'vitest';
import { AppError } from '../common/errors/app-error.js';
import { parseProductCsv } from './product-csv.js';

describe('parseProductCsv', () => {
  it('parses rows with exact prices and an optional active column', () => {
    const csv = parseProductCsv(
      'sku,name,price,active\nA-1,"Mug, large",19.99,false\nB-2,Cap,5,\n',
    );
    expect(csv.hasActiveColumn).toBe(true);
    expect(csv.rows).toEqual([
      { sku: 'A-1', name: 'Mug, large', priceMinor: 1999, active: false },
      { sku: 'B-2', name: 'Cap', priceMinor: 500, active: undefined },
    ]);
  });

  it('accepts columns in any order and a BOM', () => {
    const csv = parseProductCsv('\uFEFFprice,sku,name\n1.50,X,Thing\n');
    expect(csv.rows).toEqual([{ sku: 'X', name: 'Thing', priceMinor: 150, active: undefined }]);
    expect(csv.hasActiveColumn).toBe(false);
  });

  it('reports every bad row with its line number and imports nothing', () => {
    const text = 'sku,name,price\nA,ok,1.00\nB,bad price,1.999\n,no sku,2\nA,dup,3\n';
    expect(() => parseProductCsv(text)).toThrow(AppError);
    expect(() => parseProductCsv(text)).toThrow(/line 3: price must be/);
    expect(() => parseProductCsv(text)).toThrow(/line 4: sku must be/);
    expect(() => parseProductCsv(text)).toThrow(/line 5: sku "A" already appears on line 2/);
  });

  it('rejects a header without the required columns', () => {
    expect(() => parseProductCsv('code,title\nA,B\n')).toThrow(
      /line 1: .*missing sku, name, price/,
    );
  });

  it('rejects a malformed CSV', () => {
    expect(() => parseProductCsv('sku,name,price\n"A,unterminated,1\n')).toThrow(
      /CSV is malformed/,
    );
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'reports an active value of %j as a bad row (no inherited lookups)',
    (value) => {
      const text = `sku,name,price,active\nA,ok,1.00,true\nB,b,2.00,${value}\n`;
      expect(() => parseProductCsv(text)).toThrow(/line 3: active must be true or false/);
    },
  );

  it('counts lengths in code points, as the database CHECK does', () => {
    const emoji = '😀'.repeat(100);
    expect(parseProductCsv(`sku,name,price\n${emoji},n,1\n`).rows[0].sku).toBe(emoji);
    expect(() => parseProductCsv(`sku,name,price\n${'a\uFE0F'.repeat(51)},n,1\n`)).toThrow(
      /line 2: sku must be 1 to 100 characters/,
    );
  });

  it('reports a NUL character as a bad row', () => {
    expect(() => parseProductCsv('sku,name,price\nA,na\u0000me,1\n')).toThrow(
      /line 2: values must not contain NUL/,
    );
  });
});
