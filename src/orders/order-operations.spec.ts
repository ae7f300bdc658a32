import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../common/errors/app-error.js';
import {
  fulfillmentStatusOf,
  type OrderFigures,
  planFulfillment,
  planRefund,
  unfulfilledOf,
} from './order-operations.js';
import { applyPatch, normalTags } from './operations/order-patch.js';
import type { OrderStatus } from './order-status.js';

const order = (
  status: OrderStatus,
  lines: Array<[number, number, number, number]>,
): OrderFigures => {
  const items = lines.map(([quantity, price, fulfilled, refunded], i) => ({
    id: 100 + i,
    quantity,
    unit_price_minor: price,
    fulfilled_quantity: fulfilled,
    refunded_quantity: refunded,
  }));
  const total = items.reduce((sum, l) => sum + l.quantity * l.unit_price_minor, 0);
  return { status, currency: 'USD', total_minor: total, refunded_minor: 0, items };
};

const codeOf = (run: () => unknown) => {
  try {
    run();
    return 'ok';
  } catch (error) {
    return (error as AppError).code;
  }
};

describe('fulfillments (CONTRACT 3.10)', () => {
  it('moves paid → preparing on a partial one, → shipped (through preparing) on the last', () => {
    const paid = order('paid', [
      [2, 100, 0, 0],
      [3, 50, 0, 0],
    ]);
    expect(planFulfillment(paid, [{ item_id: 101, quantity: 1 }])).toEqual({
      lines: [{ item_id: 101, quantity: 1 }],
      fulfillmentStatus: 'partial',
      moves: [{ from: 'paid', to: 'preparing' }],
    });
    expect(planFulfillment(paid, undefined).moves).toEqual([
      { from: 'paid', to: 'preparing' },
      { from: 'preparing', to: 'shipped' },
    ]);
    const preparing = order('preparing', [
      [2, 100, 2, 0],
      [3, 50, 1, 0],
    ]);
    expect(planFulfillment(preparing, undefined)).toEqual({
      lines: [{ item_id: 101, quantity: 2 }],
      fulfillmentStatus: 'fulfilled',
      moves: [{ from: 'preparing', to: 'shipped' }],
    });
  });

  it('refuses by status, by line and by quantity, with the contract’s codes', () => {
    for (const status of ['pending', 'shipped', 'cancelled', 'refunded'] as const) {
      expect(codeOf(() => planFulfillment(order(status, [[1, 1, 0, 0]]), undefined))).toBe(
        'invalid_transition',
      );
    }
    const paid = order('paid', [[2, 100, 1, 0]]);
    expect(codeOf(() => planFulfillment(paid, [{ item_id: 100, quantity: 2 }]))).toBe(
      'exceeds_unfulfilled',
    );
    expect(codeOf(() => planFulfillment(paid, [{ item_id: 7, quantity: 1 }]))).toBe(
      'validation_failed',
    );
    expect(
      codeOf(() =>
        planFulfillment(paid, [
          { item_id: 100, quantity: 1 },
          { item_id: 100, quantity: 1 },
        ]),
      ),
    ).toBe('validation_failed');
  });

  it('units refunded by line are not due to ship: left = quantity − fulfilled − refunded, ≥ 0', () => {
    const paid = order('paid', [
      [2, 100, 0, 0],
      [3, 50, 0, 2],
    ]);
    expect(planFulfillment(paid, undefined)).toEqual({
      lines: [
        { item_id: 100, quantity: 2 },
        { item_id: 101, quantity: 1 },
      ],
      fulfillmentStatus: 'fulfilled',
      moves: [
        { from: 'paid', to: 'preparing' },
        { from: 'preparing', to: 'shipped' },
      ],
    });
    expect(codeOf(() => planFulfillment(paid, [{ item_id: 101, quantity: 2 }]))).toBe(
      'exceeds_unfulfilled',
    );
    // Everything shipped or refunded: nothing to fulfill, but `{status: "shipped"}` moves on.
    const done = order('preparing', [
      [2, 100, 2, 0],
      [3, 50, 1, 2],
    ]);
    expect(codeOf(() => planFulfillment(done, undefined))).toBe('exceeds_unfulfilled');
    expect(planFulfillment(done, undefined, 'move')).toEqual({
      lines: [],
      fulfillmentStatus: 'fulfilled',
      moves: [{ from: 'preparing', to: 'shipped' }],
    });
    // A shipped unit refunded afterwards is counted once.
    expect(unfulfilledOf({ ...done.items[0], refunded_quantity: 2 })).toBe(0);
  });

  it('fulfillment status counts refunded units as done', () => {
    const status = (lines: Array<[number, number, number, number]>) =>
      fulfillmentStatusOf(order('paid', lines).items);
    expect(status([[2, 1, 0, 0]])).toBe('unfulfilled');
    expect(status([[2, 1, 1, 0]])).toBe('partial');
    expect(status([[2, 1, 0, 1]])).toBe('partial');
    expect(status([[2, 1, 0, 2]])).toBe('fulfilled');
    expect(status([[2, 1, 1, 1]])).toBe('fulfilled');
    expect(status([[2, 1, 2, 2]])).toBe('fulfilled');
    expect(
      status([
        [2, 1, 2, 0],
        [1, 1, 0, 0],
      ]),
    ).toBe('partial');
  });

  it('never ships more than is left, whatever is asked or refunded (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 1, max: 5 }),
            fc.integer({ min: 0, max: 5 }),
            fc.integer({ min: 0, max: 5 }),
          ),
          { minLength: 1, maxLength: 4 },
        ),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 6 })), {
          maxLength: 4,
        }),
        (lines, asks) => {
          const figures = order(
            'preparing',
            lines.map(([q, f, r]) => [q, 100, Math.min(f, q - 1), Math.min(r, q)]),
          );
          const requested = asks.map(([line, quantity]) => ({ item_id: 100 + line, quantity }));
          let overshipped: unknown[] = [];
          let outcome = 'ok';
          try {
            const plan = planFulfillment(figures, requested.length ? requested : undefined);
            overshipped = plan.lines.filter((l) => {
              const line = figures.items.find((i) => i.id === l.item_id)!;
              return (
                line.fulfilled_quantity + line.refunded_quantity + l.quantity > line.quantity ||
                l.quantity < 1
              );
            });
            const after = figures.items.map((line) => ({
              ...line,
              fulfilled_quantity:
                line.fulfilled_quantity +
                (plan.lines.find((l) => l.item_id === line.id)?.quantity ?? 0),
            }));
            expect(plan.fulfillmentStatus).toBe(fulfillmentStatusOf(after));
            expect(plan.moves.at(-1)?.to === 'shipped').toBe(
              plan.fulfillmentStatus === 'fulfilled',
            );
          } catch (error) {
            outcome = (error as AppError).code;
          }
          expect(overshipped).toEqual([]);
          expect(['ok', 'exceeds_unfulfilled', 'validation_failed']).toContain(outcome);
        },
      ),
    );
  });
});

describe('refunds (CONTRACT 3.10)', () => {
  it('amount, lines (their value by default) or everything left; refunded at the total', () => {
    const paid = order('paid', [
      [2, 1000, 0, 0],
      [3, 250, 0, 0],
    ]);
    expect(planRefund(paid, 550, undefined)).toEqual({
      lines: [],
      amountMinor: 550,
      refundedMinor: 550,
      moves: [],
    });
    expect(planRefund(paid, undefined, [{ item_id: 101, quantity: 2 }]).amountMinor).toBe(500);
    expect(planRefund(paid, 1, [{ item_id: 101, quantity: 2 }]).amountMinor).toBe(1);
    expect(planRefund({ ...paid, refunded_minor: 700 }, undefined, undefined)).toMatchObject({
      amountMinor: 2050,
      refundedMinor: 2750,
      moves: [{ from: 'paid', to: 'refunded' }],
    });
  });

  it('a refund by line that leaves a preparing order nothing to ship moves it on to shipped', () => {
    // Two units: one shipped, the other refunded.
    const preparing = order('preparing', [[2, 1000, 1, 0]]);
    expect(planRefund(preparing, undefined, [{ item_id: 100, quantity: 1 }]).moves).toEqual([
      { from: 'preparing', to: 'shipped' },
    ]);
    // Something left to ship, an amount only, or a paid order (nothing shipped yet): no move.
    const two = order('preparing', [[3, 1000, 1, 0]]);
    expect(planRefund(two, undefined, [{ item_id: 100, quantity: 1 }]).moves).toEqual([]);
    expect(planRefund(preparing, 1000, undefined).moves).toEqual([]);
    expect(
      planRefund(order('paid', [[2, 1000, 0, 0]]), 1, [{ item_id: 100, quantity: 1 }]).moves,
    ).toEqual([]);
  });

  it('refuses past what is left, in money or in a line, and outside paid/preparing/shipped', () => {
    const shipped = { ...order('shipped', [[2, 1000, 2, 1]]), refunded_minor: 1000 };
    expect(codeOf(() => planRefund(shipped, 1001, undefined))).toBe('exceeds_refundable');
    expect(codeOf(() => planRefund(shipped, undefined, [{ item_id: 100, quantity: 2 }]))).toBe(
      'exceeds_refundable',
    );
    expect(codeOf(() => planRefund(shipped, 1000, undefined))).toBe('ok');
    for (const status of ['pending', 'cancelled', 'refunded'] as const) {
      expect(codeOf(() => planRefund(order(status, [[1, 1, 0, 0]]), 1, undefined))).toBe(
        'invalid_transition',
      );
    }
  });
});

describe('PATCH (CONTRACT 3.4)', () => {
  const empty = { note: null, tags: [], metadata: {} };

  it('tags: a set regardless of case, the first spelling kept, sorted case-insensitively', () => {
    expect(normalTags(['vip', 'Gift', 'VIP', 'b2b', 'gift'])).toEqual(['b2b', 'Gift', 'vip']);
  });

  it('metadata merges as RFC 7396; no-ops change nothing; more than 50 keys is 400', () => {
    const base = { ...empty, metadata: { a: '1', b: '2' } };
    expect(applyPatch(base, { metadata: { b: null, c: '3' } })).toEqual({
      next: { ...base, metadata: { a: '1', c: '3' } },
      changed: ['metadata'],
    });
    expect(applyPatch(base, { metadata: { a: '1', z: null } }).changed).toEqual([]);
    expect(applyPatch(base, { metadata: null }).next.metadata).toEqual({});
    expect(applyPatch(base, { metadata: { ['__proto__']: 'x' } }).next.metadata).toEqual(
      Object.fromEntries([
        ['__proto__', 'x'],
        ['a', '1'],
        ['b', '2'],
      ]),
    );
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    expect(codeOf(() => applyPatch(empty, { metadata: many }))).toBe('validation_failed');
  });

  it('applying a patch twice changes nothing the second time (property)', () => {
    const key = fc.constantFrom('a', 'b', 'c', 'd');
    fc.assert(
      fc.property(
        fc.option(fc.string({ maxLength: 5 }), { nil: undefined }),
        fc.option(fc.array(fc.constantFrom('x', 'X', 'y', 'z'), { maxLength: 5 }), {
          nil: undefined,
        }),
        fc.option(fc.dictionary(key, fc.option(fc.constantFrom('1', '2'), { nil: null })), {
          nil: undefined,
        }),
        (note, tags, metadata) => {
          const patch = { note, tags, metadata };
          const once = applyPatch(empty, patch).next;
          expect(applyPatch(once, patch).changed).toEqual([]);
        },
      ),
    );
  });
});
