import type { ErrorDetail } from '../common/errors/app-error.js';
import { amountsRefused, parseAmount } from '../common/money.js';
import { totalsOf } from '../orders/pricing.js';
import type { ImportItemInput } from './dto/import-order.dto.js';

/**
 * An import's lines in minor units of the tenant's currency: every `unit_price` and `total`
 * with at most its digits and within 10^13 minor units, each `total` exactly `unit_price ×
 * quantity`, and the order total within the bound too (CONTRACT 3.4, 3.7). Else 400
 * `validation_failed` naming each bad field: checked when the import is sent, so that an order
 * the worker could never write is refused at once, not after its retries.
 */
export function importLineAmounts(
  items: readonly ImportItemInput[],
  currency: string,
): Array<{ unitPriceMinor: number; quantity: number }> {
  const details: ErrorDetail[] = [];
  const lines = items.map((item, index) => {
    const unit = parseAmount(item.unit_price, currency);
    const total = parseAmount(item.total, currency);
    if ('problem' in unit) {
      details.push({ field: `items[${index}].unit_price`, message: unit.problem });
    }
    if ('problem' in total) {
      details.push({ field: `items[${index}].total`, message: total.problem });
    } else if (
      'minor' in unit &&
      BigInt(unit.minor) * BigInt(item.quantity) !== BigInt(total.minor)
    ) {
      details.push({ field: `items[${index}].total`, message: 'must equal unit_price × quantity' });
    }
    return { unitPriceMinor: 'minor' in unit ? unit.minor : 0, quantity: item.quantity };
  });
  if (details.length === 0) details.push(...totalsOf(lines).details);
  if (details.length > 0) throw amountsRefused(details);
  return lines;
}
