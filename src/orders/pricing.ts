import { AppError } from '../common/errors/app-error.js';

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
 * units with BigInt in between, so nothing is ever rounded; a total beyond exact JSON
 * numbers (2^53 minor units) is refused rather than corrupted.
 */
export function priceLines(lines: Array<Omit<PricedLine, 'totalMinor'>>): {
  lines: PricedLine[];
  totalMinor: number;
} {
  let total = 0n;
  const priced = lines.map((line) => {
    const lineTotal = BigInt(line.unitPriceMinor) * BigInt(line.quantity);
    total += lineTotal;
    return { ...line, totalMinor: safe(lineTotal) };
  });
  return { lines: priced, totalMinor: safe(total) };
}

function safe(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new AppError('validation_failed', 'The order total is too large', {
      details: [
        { field: 'items', message: 'order total exceeds the largest representable amount' },
      ],
    });
  }
  return Number(value);
}
