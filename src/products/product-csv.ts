import { parse } from 'csv-parse/sync';
import { AppError } from '../common/errors/app-error.js';
import { parseProductInput, type ProductInput } from './product-input.js';

const REQUIRED_COLUMNS = ['sku', 'name', 'price'];

export interface ProductCsv {
  rows: ProductInput[];
  /** Whether the file had an `active` column (else existing products keep their state). */
  hasActiveColumn: boolean;
}

/**
 * Parses and validates a whole product CSV before anything is written, so a bad file
 * changes nothing; prices in the tenant's `currency`. Errors name the file's line numbers (the
 * header is line 1).
 */
export function parseProductCsv(text: string, currency: string): ProductCsv {
  let records: string[][];
  try {
    records = parse(text, {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: false,
      trim: false,
    });
  } catch (e) {
    throw new AppError('validation_failed', `CSV is malformed: ${(e as Error).message}`);
  }
  const header = (records[0] ?? []).map((h) => h.trim().toLowerCase());
  const missing = REQUIRED_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length > 0) {
    throw new AppError(
      'validation_failed',
      `line 1: header must name ${REQUIRED_COLUMNS.join(',')} (optional active, stock); missing ${missing.join(', ')}`,
    );
  }
  const column = (name: string) => header.indexOf(name);
  const [sku, name, price, active, stock] = ['sku', 'name', 'price', 'active', 'stock'].map(column);
  const problems: string[] = [];
  const rows: ProductInput[] = [];
  const firstLineOfSku = new Map<string, number>();
  records.slice(1).forEach((record, index) => {
    const line = index + 2;
    const parsed = parseProductInput(
      {
        sku: record[sku],
        name: record[name],
        price: record[price],
        active: active >= 0 ? record[active] : undefined,
        stock: stock >= 0 ? record[stock] : undefined,
      },
      currency,
    );
    if ('errors' in parsed) {
      problems.push(...parsed.errors.map((e) => `line ${line}: ${e}`));
      return;
    }
    const seen = firstLineOfSku.get(parsed.sku);
    if (seen !== undefined)
      problems.push(`line ${line}: sku "${parsed.sku}" already appears on line ${seen}`);
    firstLineOfSku.set(parsed.sku, line);
    rows.push(parsed);
  });
  if (problems.length > 0) {
    const shown = problems.slice(0, 20).join('\n');
    const more = problems.length > 20 ? `\n... and ${problems.length - 20} more` : '';
    throw new AppError(
      'validation_failed',
      `CSV has ${problems.length} error(s), nothing imported:\n${shown}${more}`,
    );
  }
  return { rows, hasActiveColumn: active >= 0 };
}
