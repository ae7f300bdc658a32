import type { TenantSql } from '../../database/sql/tenant-sql.js';
import type { ChangePlan } from '../order-writer.js';
import {
  CANCELLABLE,
  type CancelReason,
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

/** Cancel: a pending order only. */
export function cancelPlan(
  order: OrderWithItemsRow,
  reason: CancelReason,
  note: string | null,
): ChangePlan {
  if (!CANCELLABLE.includes(order.status)) throw notAllowed('cancel', order.status, CANCELLABLE);
  return {
    next: { ...stateOf(order), status: 'cancelled', cancel_reason: reason, cancel_note: note },
    moves: [{ from: order.status, to: 'cancelled' }],
  };
}

export interface FulfillmentInput {
  items?: LineQuantity[];
  tracking: Tracking | null;
}

/** A fulfillment, recorded with the order's new quantities and status. */
export function fulfillmentPlan(
  order: OrderWithItemsRow,
  input: FulfillmentInput,
  fulfillments: FulfillmentsRepository,
): ChangePlan {
  const items = order.items ?? [];
  const plan = planFulfillment({ ...order, items }, input.items);
  const shipped = new Map(plan.lines.map((l) => [l.item_id, l.quantity]));
  return {
    next: {
      ...stateOf(order),
      status: plan.moves.at(-1)?.to ?? order.status,
      fulfillment_status: plan.fulfillmentStatus,
    },
    lines: changedLines(items, shipped, 'fulfilled_quantity'),
    moves: plan.moves,
    record: async (db: TenantSql, after: OrderDto, saved: SavedChange) => {
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
  amountMinor?: number;
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
  const plan = planRefund({ ...order, items }, input.amountMinor, input.items);
  const refunded = new Map(plan.lines.map((l) => [l.item_id, l.quantity]));
  return {
    next: {
      ...stateOf(order),
      status: plan.moves.at(-1)?.to ?? order.status,
      refunded_minor: plan.refundedMinor,
    },
    lines: changedLines(items, refunded, 'refunded_quantity'),
    moves: plan.moves,
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
  if (to === 'cancelled') return cancelPlan(order, 'other', null);
  if (to === 'shipped') return fulfillmentPlan(order, { tracking: null }, fulfillments);
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
