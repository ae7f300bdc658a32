import { describe, expect, it } from 'vitest';
import { canTransition, ORDER_STATUSES, ORDER_TRANSITIONS } from './order-status.js';

describe('order status machine', () => {
  const allowed = new Set([
    'pending>paid',
    'pending>cancelled',
    'paid>preparing',
    'paid>refunded',
    'preparing>shipped',
    'preparing>refunded',
    'shipped>refunded',
  ]);

  it.each(ORDER_STATUSES.flatMap((from) => ORDER_STATUSES.map((to) => [from, to] as const)))(
    '%s → %s',
    (from, to) => {
      expect(canTransition(from, to)).toBe(allowed.has(`${from}>${to}`));
    },
  );

  it('has terminal states cancelled and refunded', () => {
    expect(ORDER_TRANSITIONS.cancelled).toEqual([]);
    expect(ORDER_TRANSITIONS.refunded).toEqual([]);
  });
});
