import type { NewEvent } from '../outbox/outbox.repository.js';
import { toProductDto } from './product.mapper.js';
import type { ProductRow } from './products.repository.js';
import type { StockMove } from './stock.repository.js';

/** Why a product's stock moved (`data.reason` of `product.inventory_changed`). */
export type StockReason = 'order' | 'cancellation' | 'refund' | 'import' | 'adjustment';

/** The product fields whose change `product.updated` names. */
export type ProductField = 'name' | 'price' | 'active';

export function productCreated(product: ProductRow): NewEvent {
  return { type: 'product.created', data: { object: toProductDto(product) } };
}

export function productUpdated(product: ProductRow, changed: readonly ProductField[]): NewEvent {
  return { type: 'product.updated', data: { object: toProductDto(product), changed } };
}

/** One `product.inventory_changed` per product moved, in product id order. */
export function inventoryChanged(
  moves: readonly StockMove[],
  reason: StockReason,
  cause: { orderId?: number; note?: string | null } = {},
): NewEvent[] {
  return moves.map((move) => ({
    type: 'product.inventory_changed',
    data: {
      object: toProductDto(move.product),
      previous_available: move.previousAvailable,
      reason,
      order_id: cause.orderId ?? null,
      ...(cause.note === undefined ? {} : { note: cause.note }),
    },
  }));
}

/** The fields of `before` that `after` changed, for `product.updated`. */
export function changedFields(before: ProductRow, after: ProductRow): ProductField[] {
  const changed: ProductField[] = [];
  if (before.name !== after.name) changed.push('name');
  if (before.price_minor !== after.price_minor) changed.push('price');
  if (before.active !== after.active) changed.push('active');
  return changed;
}
