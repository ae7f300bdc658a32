import { requireAmounts } from '../../common/money.js';
import type { TenantSql } from '../../database/sql/tenant-sql.js';
import type { ChangePlan } from '../order-writer.js';
import {
  CANCELLABLE,
  type CancelReason,
  fulfillmentStatusOf,
  invalidTransition,
  type LineQuantity,
  notAllowed,
  planFulfillment,
  planRefund,
} from '../order-operations.js';
import type { OrderDto } from '../dto/order.dto.js';
import { canTransition, type OrderStatus } from '../order-status.js';
import type {
  LineChange,
  OrderState,
  OrderWithItemsRow,
  SavedChange,
} from '../orders.repository.js';
import { applyPatch, type OrderPatch } from './order-patch.js';
import type { FulfillmentsRepository, Tracking } from './fulfillments.repository.js';
import type { RefundsRepository } from './refunds.repository.js';
import { toFulfillmentDto, toRefundDto } from './operations.mapper.js';
import { stockDelta } from '../order-stock.js';

/** The parts of a locked order a change may move. */
export function stateOf(order: OrderWithItemsRow): OrderState {
  return {
    id: order.id,
    status: order.status,
    fulfillment_status: order.fulfillment_status,
    refunded_minor: order.refunded_minor,
    cancel_reason: order.cancel_reason,
    cancel_note: order.cancel_note,
    note: order.note,
    tags: order.tags,
    metadata: order.metadata,
  };
}

/** `PATCH`: note, tags, metadata; undefined (nothing written) when nothing changes. */
export function patchPlan(order: OrderWithItemsRow, patch: OrderPatch): ChangePlan | undefined {
  const { next, changed } = applyPatch(order, patch);
  if (changed.length === 0) return undefined;
  return {
    next: { ...stateOf(order), ...next },
    moves: [],
    events: (after) => [
      { type: 'order.updated', orderId: after.id, data: { object: after, changed } },
    ],
  };
}

/** Cancel: a pending order only; with `restock`, every unit its lines hold goes back. */
export function cancelPlan(
  order: OrderWithItemsRow,
  reason: CancelReason,
  note: string | null,
  restock: boolean,
): ChangePlan {
  if (!CANCELLABLE.includes(order.status)) throw notAllowed('cancel', order.status, CANCELLABLE);
  const holding = restock ? (order.items ?? []).filter((item) => (item.stock_held ?? 0) > 0) : [];
  return {
    next: { ...stateOf(order), status: 'cancelled', cancel_reason: reason, cancel_note: note },
    lines: holding.map((item) => ({
      id: item.id,
      fulfilled_quantity: item.fulfilled_quantity,
      refunded_quantity: item.refunded_quantity,
      stock_held: 0,
    })),
    moves: [{ from: order.status, to: 'cancelled' }],
    stock: {
      reason: 'cancellation',
      delta: stockDelta(
        holding.map((item) => ({ productId: item.product_id, quantity: item.stock_held! })),
        -1,
      ),
    },
  };
}

export interface FulfillmentInput {
  items?: LineQuantity[];
  tracking: Tracking | null;
  /** `{status: "shipped"}`: with nothing left to ship, the order moves on with no record. */
  shipEverything?: boolean;
}

/** A fulfillment, recorded with the order's new quantities and status. */
export function fulfillmentPlan(
  order: OrderWithItemsRow,
  input: FulfillmentInput,
  fulfillments: FulfillmentsRepository,
): ChangePlan {
  const items = order.items ?? [];
  const plan = planFulfillment(
    { ...order, items },
    input.items,
    input.shipEverything ? 'move' : 'refuse',
  );
  const shipped = new Map(plan.lines.map((l) => [l.item_id, l.quantity]));
  return {
    next: {
      ...stateOf(order),
      status: plan.moves.at(-1)?.to ?? order.status,
      fulfillment_status: plan.fulfillmentStatus,
    },
    lines: changedLines(items, shipped, 'fulfilled_quantity'),
    moves: plan.moves,
    record:
      plan.lines.length === 0
        ? undefined
        : async (db: TenantSql, after: OrderDto, saved: SavedChange) => {
            const row = await fulfillments.insert(
              db,
              order.id,
              plan.lines,
              input.tracking,
              saved.updated_at,
            );
            const fulfillment = toFulfillmentDto(row);
            return {
              record: fulfillment,
              events: [
                {
                  type: 'fulfillment.created',
                  orderId: order.id,
                  data: { object: fulfillment, order: after },
                },
              ],
            };
          },
  };
}

export interface RefundInput {
  /** As sent: checked against the order's currency here (money.ts). */
  amount?: number;
  items?: LineQuantity[];
  reason: string | null;
  restock: boolean;
}

/** A refund, recorded with the order's new refunded total, quantities and status. */
export function refundPlan(
  order: OrderWithItemsRow,
  input: RefundInput,
  refunds: RefundsRepository,
): ChangePlan {
  const items = order.items ?? [];
  const amountMinor =
    input.amount === undefined
      ? undefined
      : requireAmounts(order.currency, [{ field: 'amount', value: input.amount }])[0];
  const plan = planRefund({ ...order, items }, amountMinor, input.items);
  const refunded = new Map(plan.lines.map((l) => [l.item_id, l.quantity]));
  const lines = changedLines(items, refunded, 'refunded_quantity');
  // With restock, each refunded line gives back as many of its units as it still holds.
  const givenBack: Array<{ productId: number | null; quantity: number }> = [];
  if (input.restock) {
    for (const line of lines) {
      const item = items.find((i) => i.id === line.id)!;
      const given = Math.min(refunded.get(line.id)!, item.stock_held ?? 0);
      if (given === 0) continue;
      line.stock_held = item.stock_held! - given;
      givenBack.push({ productId: item.product_id, quantity: given });
    }
  }
  // Units refunded by line are no longer due to ship: they count as done (3.10).
  const linesAfter = items.map((item) => ({
    ...item,
    refunded_quantity: item.refunded_quantity + (refunded.get(item.id) ?? 0),
  }));
  return {
    next: {
      ...stateOf(order),
      status: plan.moves.at(-1)?.to ?? order.status,
      refunded_minor: plan.refundedMinor,
      fulfillment_status: fulfillmentStatusOf(linesAfter),
    },
    lines,
    moves: plan.moves,
    stock: { reason: 'refund', delta: stockDelta(givenBack, -1) },
    record:
      plan.amountMinor === 0
        ? undefined
        : async (db: TenantSql, after: OrderDto, saved: SavedChange) => {
            const row = await refunds.insert(db, {
              orderId: order.id,
              amountMinor: plan.amountMinor,
              currency: order.currency,
              items: plan.lines,
              reason: input.reason,
              restocked: input.restock,
              at: saved.updated_at,
            });
            const refund = toRefundDto(row);
            return {
              record: refund,
              events: [
                {
                  type: 'refund.created',
                  orderId: order.id,
                  data: { object: refund, order: after },
                },
              ],
            };
          },
  };
}

/**
 * `POST /v1/orders/{id}/status`: a move along the graph of 3.4. `cancelled` is a cancel for
 * reason `other`, `shipped` a fulfillment of everything left (without tracking), `refunded` a
 * refund of everything left (without restock), so status, fulfillment and refunds agree.
 */
export function statusPlan(
  order: OrderWithItemsRow,
  to: OrderStatus,
  fulfillments: FulfillmentsRepository,
  refunds: RefundsRepository,
): ChangePlan {
  if (!canTransition(order.status, to)) throw invalidTransition(order.status, to);
  if (to === 'cancelled') return cancelPlan(order, 'other', null, true);
  if (to === 'shipped') {
    return fulfillmentPlan(order, { tracking: null, shipEverything: true }, fulfillments);
  }
  if (to === 'refunded') return refundPlan(order, { reason: null, restock: false }, refunds);
  return { next: { ...stateOf(order), status: to }, moves: [{ from: order.status, to }] };
}

/** The lines whose `field` grows by `added`, with their quantities after. */
function changedLines(
  items: OrderWithItemsRow['items'] & object,
  added: ReadonlyMap<number, number>,
  field: 'fulfilled_quantity' | 'refunded_quantity',
): LineChange[] {
  return items
    .filter((item) => added.has(item.id))
    .map((item) => ({
      id: item.id,
      fulfilled_quantity: item.fulfilled_quantity,
      refunded_quantity: item.refunded_quantity,
      [field]: item[field] + added.get(item.id)!,
    }));
}
