export const ORDER_STATUSES = [
  'pending',
  'paid',
  'preparing',
  'shipped',
  'cancelled',
  'refunded',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** The whole order process (docs/BEHAVIOUR.md#order-statuses): where each status may go next. */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  pending: ['paid', 'cancelled'],
  paid: ['preparing', 'refunded'],
  preparing: ['shipped', 'refunded'],
  shipped: ['refunded'],
  cancelled: [],
  refunded: [],
};

export const INITIAL_ORDER_STATUS: OrderStatus = 'pending';

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return ORDER_TRANSITIONS[from].includes(to);
}
