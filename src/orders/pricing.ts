import type { ErrorDetail } from '../common/errors/app-error.js';
import { amountsRefused, BOUND_TEXT, MAX_MINOR_UNITS } from '../common/money.js';

export interface PricedLine {
  productId: number | null;
  sku: string;
  name: string;
  quantity: number;
  unitPriceMinor: number;
  totalMinor: number;
  /** Units taken from the product's stock for this line (tracked products only). */
  stockHeld?: number;
}

/**
 * Line total = unit price × quantity and order total = sum of lines, in integer minor
 * units with BigInt in between, so nothing is ever rounded. A line total or an order total
 * beyond 10^13 minor units (CONTRACT 3.4) is 400 `validation_failed`, naming the lines.
 */
export function priceLines(lines: Array<Omit<PricedLine, 'totalMinor'>>): {
  lines: PricedLine[];
  totalMinor: number;
} {
  const { lineTotals, total, details } = totalsOf(lines);
  if (details.length > 0) throw amountsRefused(details);
  return {
    lines: lines.map((line, i) => ({ ...line, totalMinor: Number(lineTotals[i]) })),
    totalMinor: Number(total),
  };
}

/**
 * The exact totals of `lines` and what breaks the bound: each line whose total is beyond it
 * (`items[i].quantity`), then the order total (`items`). Exported for the marketplace import,
 * which refuses such an order when it is sent rather than when its job runs.
 */
export function totalsOf(lines: ReadonlyArray<{ unitPriceMinor: number; quantity: number }>): {
  lineTotals: bigint[];
  total: bigint;
  details: ErrorDetail[];
} {
  const bound = BigInt(MAX_MINOR_UNITS);
  const details: ErrorDetail[] = [];
  let total = 0n;
  const lineTotals = lines.map((line, index) => {
    const lineTotal = BigInt(line.unitPriceMinor) * BigInt(line.quantity);
    if (lineTotal > bound) {
      details.push({
        field: `items[${index}].quantity`,
        message: `makes the line total (unit price × quantity) go beyond ${BOUND_TEXT}`,
      });
    }
    total += lineTotal;
    return lineTotal;
  });
  if (details.length === 0 && total > bound) {
    details.push({
      field: 'items',
      message: `make the order total (the sum of the line totals) go beyond ${BOUND_TEXT}`,
    });
  }
  return { lineTotals, total, details };
}
