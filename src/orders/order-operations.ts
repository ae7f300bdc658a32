import { AppError, type ErrorDetail } from '../common/errors/app-error.js';
import { formatAmount } from '../common/money.js';
import { ORDER_TRANSITIONS, type OrderStatus } from './order-status.js';

/** How much of an order has shipped (docs/BEHAVIOUR.md#order-operations). */
export const FULFILLMENT_STATUSES = ['unfulfilled', 'partial', 'fulfilled'] as const;
export type FulfillmentStatus = (typeof FULFILLMENT_STATUSES)[number];

/** Why an order was cancelled. */
export const CANCEL_REASONS = ['customer', 'fraud', 'inventory', 'declined', 'other'] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

/** The statuses in which each operation is allowed (CONTRACT 3.10). */
export const FULFILLABLE: readonly OrderStatus[] = ['paid', 'preparing'];
export const REFUNDABLE: readonly OrderStatus[] = ['paid', 'preparing', 'shipped'];
export const CANCELLABLE: readonly OrderStatus[] = ['pending'];

/** What the operations read of an order: its status, money and lines. */
export interface OrderFigures {
  status: OrderStatus;
  /** ISO 4217, the tenant's: the digits its amounts are written with. */
  currency: string;
  total_minor: number;
  refunded_minor: number;
  items: ReadonlyArray<LineFigures>;
}

export interface LineFigures {
  id: number;
  quantity: number;
  unit_price_minor: number;
  fulfilled_quantity: number;
  refunded_quantity: number;
}

/** A quantity of one line, as fulfillments and refunds name them. */
export interface LineQuantity {
  item_id: number;
  quantity: number;
}

/** One step along the status graph, as history rows and `order.status_changed` events show it. */
export interface StatusMove {
  from: OrderStatus;
  to: OrderStatus;
}

export interface FulfillmentPlan {
  lines: LineQuantity[];
  fulfillmentStatus: FulfillmentStatus;
  moves: StatusMove[];
}

export interface RefundPlan {
  lines: LineQuantity[];
  amountMinor: number;
  refundedMinor: number;
  moves: StatusMove[];
}

/** 409 `invalid_transition` for an operation the order's status does not allow. */
export function notAllowed(
  operation: string,
  status: OrderStatus,
  allowed: readonly OrderStatus[],
): AppError {
  return new AppError(
    'invalid_transition',
    `Cannot ${operation} an order that is ${status}; allowed while ${allowed.join(' or ')}`,
    { details: [{ field: 'status', message: `${operation} is not allowed while ${status}` }] },
  );
}

/** 409 `invalid_transition` for a status change off the graph of 3.4. */
export function invalidTransition(from: OrderStatus, to: OrderStatus): AppError {
  const allowed = ORDER_TRANSITIONS[from];
  return new AppError(
    'invalid_transition',
    `Cannot change an order from ${from} to ${to}; allowed: ${allowed.length > 0 ? allowed.join(', ') : 'none'}`,
    { details: [{ field: 'status', message: `not allowed from ${from}` }] },
  );
}

/**
 * What is left to ship of a line (3.10): its quantity less what shipped and what was refunded
 * by line (those units are no longer due), never below 0.
 */
export function unfulfilledOf(line: LineFigures): number {
  return Math.max(0, line.quantity - line.fulfilled_quantity - line.refunded_quantity);
}

/**
 * The order's fulfillment status from its lines: `fulfilled` when nothing is left to ship,
 * `unfulfilled` when no unit is done yet, else `partial`. Refunded units count as done.
 */
export function fulfillmentStatusOf(lines: ReadonlyArray<LineFigures>): FulfillmentStatus {
  if (lines.every((line) => unfulfilledOf(line) === 0)) return 'fulfilled';
  return lines.every((line) => line.fulfilled_quantity + line.refunded_quantity === 0)
    ? 'unfulfilled'
    : 'partial';
}

/**
 * A fulfillment of `requested` (or, without it, of everything left unfulfilled): the lines
 * it ships, the order's fulfillment status after it, and the status moves it makes (a first
 * partial fulfillment moves `paid` to `preparing`; the one that completes the order moves it
 * on to `shipped`, through `preparing`). With nothing left to ship it is 422, unless
 * `whenNothingLeft` is `move` (`{status: "shipped"}`): the order then moves on with no lines.
 */
export function planFulfillment(
  order: OrderFigures,
  requested: readonly LineQuantity[] | undefined,
  whenNothingLeft: 'refuse' | 'move' = 'refuse',
): FulfillmentPlan {
  if (!FULFILLABLE.includes(order.status)) throw notAllowed('fulfill', order.status, FULFILLABLE);
  const left = unfulfilledOf;
  const lines =
    requested === undefined
      ? order.items.filter((line) => left(line) > 0).map((line) => take(line, left(line)))
      : resolveLines(order, requested, 'items');
  const short = lines
    .map((wanted, index) => ({ wanted, index, line: lineOf(order, wanted.item_id)! }))
    .filter(({ wanted, line }) => wanted.quantity > left(line));
  if (short.length > 0) {
    throw new AppError(
      'exceeds_unfulfilled',
      `${short.length} line(s) ask to ship more than is left unfulfilled`,
      {
        details: short.map(({ wanted, index, line }) => ({
          field: `items[${index}].quantity`,
          message: `item ${wanted.item_id} has ${left(line)} left unfulfilled`,
        })),
      },
    );
  }
  if (lines.length === 0 && whenNothingLeft === 'refuse') {
    throw new AppError(
      'exceeds_unfulfilled',
      'Every line of the order is already fulfilled or refunded',
    );
  }
  const shipped = new Map(lines.map((l) => [l.item_id, l.quantity]));
  const after = order.items.map((line) => ({
    ...line,
    fulfilled_quantity: line.fulfilled_quantity + (shipped.get(line.id) ?? 0),
  }));
  const fulfillmentStatus = fulfillmentStatusOf(after);
  const moves: StatusMove[] = [];
  if (order.status === 'paid') moves.push({ from: 'paid', to: 'preparing' });
  if (fulfillmentStatus === 'fulfilled') moves.push({ from: 'preparing', to: 'shipped' });
  return { lines, fulfillmentStatus, moves };
}

/**
 * A refund of `amountMinor` and/or `requested` lines (at least one of them; `amountMinor`
 * defaults to the lines' value), or, when both are absent, of everything left: the lines, the
 * amount, the order's refunded total after it, and the move to `refunded` when that total
 * reaches the order's.
 */
export function planRefund(
  order: OrderFigures,
  amountMinor: number | undefined,
  requested: readonly LineQuantity[] | undefined,
): RefundPlan {
  if (!REFUNDABLE.includes(order.status)) throw notAllowed('refund', order.status, REFUNDABLE);
  const leftOf = (line: LineFigures) => line.quantity - line.refunded_quantity;
  const whole = amountMinor === undefined && requested === undefined;
  const lines = whole
    ? order.items.filter((line) => leftOf(line) > 0).map((line) => take(line, leftOf(line)))
    : requested === undefined
      ? []
      : resolveLines(order, requested, 'items');
  const problems: ErrorDetail[] = [];
  lines.forEach((wanted, index) => {
    const line = lineOf(order, wanted.item_id)!;
    if (wanted.quantity > leftOf(line)) {
      problems.push({
        field: `items[${index}].quantity`,
        message: `item ${wanted.item_id} has ${leftOf(line)} left to refund`,
      });
    }
  });
  const refundable = order.total_minor - order.refunded_minor;
  if (whole && refundable === 0) {
    // An order of free lines: `/status refunded` moves it, with nothing to record.
    return {
      lines: [],
      amountMinor: 0,
      refundedMinor: order.refunded_minor,
      moves: [toRefunded(order)],
    };
  }
  const amount = whole
    ? refundable
    : (amountMinor ??
      lines.reduce((sum, l) => sum + lineOf(order, l.item_id)!.unit_price_minor * l.quantity, 0));
  if (amount > refundable) {
    problems.push({
      field: 'amount',
      message: `at most ${formatAmount(refundable, order.currency)} is left to refund`,
    });
  }
  if (amount <= 0 && problems.length === 0) {
    problems.push({ field: 'amount', message: 'nothing is left to refund' });
  }
  if (problems.length > 0) {
    throw new AppError('exceeds_refundable', 'The refund is larger than what is left to refund', {
      details: problems,
    });
  }
  const refundedMinor = order.refunded_minor + amount;
  const moves: StatusMove[] =
    refundedMinor === order.total_minor
      ? [toRefunded(order)]
      : shipsNothingMore(order, lines)
        ? [{ from: 'preparing', to: 'shipped' }]
        : [];
  return { lines, amountMinor: amount, refundedMinor, moves };
}

/**
 * Whether refunding `lines` of a `preparing` order leaves nothing to ship: its shipped units
 * went, the rest will not go (3.10). It then moves on to `shipped`, as the fulfillment that
 * shipped the last units would have (an edit that leaves nothing unfulfilled does the same).
 */
function shipsNothingMore(order: OrderFigures, lines: readonly LineQuantity[]): boolean {
  if (order.status !== 'preparing' || lines.length === 0) return false;
  const refunded = new Map(lines.map((l) => [l.item_id, l.quantity]));
  const after = order.items.map((line) => ({
    ...line,
    refunded_quantity: line.refunded_quantity + (refunded.get(line.id) ?? 0),
  }));
  return fulfillmentStatusOf(after) === 'fulfilled';
}

function toRefunded(order: OrderFigures): StatusMove {
  return { from: order.status, to: 'refunded' };
}

function take(line: LineFigures, quantity: number): LineQuantity {
  return { item_id: line.id, quantity };
}

function lineOf(order: OrderFigures, itemId: number): LineFigures | undefined {
  return order.items.find((line) => line.id === itemId);
}

/** The requested lines, each an item of this order and named once; else 400. */
function resolveLines(
  order: OrderFigures,
  requested: readonly LineQuantity[],
  field: string,
): LineQuantity[] {
  const seen = new Set<number>();
  const problems: ErrorDetail[] = [];
  requested.forEach((wanted, index) => {
    if (!lineOf(order, wanted.item_id)) {
      problems.push({
        field: `${field}[${index}].item_id`,
        message: `item ${wanted.item_id} is not a line of this order`,
      });
    } else if (seen.has(wanted.item_id)) {
      problems.push({
        field: `${field}[${index}].item_id`,
        message: `item ${wanted.item_id} is named more than once`,
      });
    }
    seen.add(wanted.item_id);
  });
  if (problems.length > 0) {
    throw new AppError('validation_failed', 'The request names lines that are not this order’s', {
      details: problems,
    });
  }
  return requested.map((wanted) => ({ item_id: wanted.item_id, quantity: wanted.quantity }));
}
