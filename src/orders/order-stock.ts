import { AppError, type ErrorDetail } from '../common/errors/app-error.js';
import type { StockShortage } from '../products/stock.repository.js';

/** Units per product id over the lines (a product may appear on several lines). */
export function stockDelta(
  lines: ReadonlyArray<{ productId: number | null; quantity: number }>,
  sign: 1 | -1 = 1,
): Map<number, number> {
  const delta = new Map<number, number>();
  for (const line of lines) {
    if (line.productId === null || line.quantity === 0) continue;
    delta.set(line.productId, (delta.get(line.productId) ?? 0) + sign * line.quantity);
  }
  return delta;
}

/** 422 `insufficient_stock`: one detail per line of a short product. */
export function insufficientStock(
  lines: ReadonlyArray<{ product_id: number }>,
  shortages: readonly StockShortage[],
): AppError {
  const short = new Map(shortages.map((s) => [s.productId, s]));
  const details: ErrorDetail[] = [];
  lines.forEach((line, index) => {
    const s = short.get(line.product_id);
    if (!s) return;
    details.push({
      field: `items[${index}].quantity`,
      message: `product ${s.productId}: ${s.requested} requested, ${s.available} available`,
      product_id: s.productId,
      requested: s.requested,
      available: s.available,
    });
  });
  return new AppError(
    'insufficient_stock',
    `${shortages.length} product(s) of the order are short of stock; nothing was written`,
    { details },
  );
}
