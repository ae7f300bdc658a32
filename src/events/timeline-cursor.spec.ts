import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeTimelineCursor, encodeTimelineCursor } from './timeline-cursor.js';

describe('timeline cursor', () => {
  it('round-trips every position of its order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        (orderId, seq) => {
          expect(decodeTimelineCursor(encodeTimelineCursor(orderId, seq), orderId)).toBe(seq);
        },
      ),
    );
  });

  it("refuses another order's cursor, a feed cursor and anything it did not make", () => {
    expect(decodeTimelineCursor(encodeTimelineCursor(7, 12), 8)).toBeUndefined();
    for (const text of ['', 'abc', 't1.7.12', Buffer.from('e1.7.12').toString('base64url')]) {
      expect(decodeTimelineCursor(text, 7)).toBeUndefined();
    }
    expect(decodeTimelineCursor(Buffer.from('t1.7.012').toString('base64url'), 7)).toBeUndefined();
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 1000 }), (text, orderId) => {
        const seq = decodeTimelineCursor(text, orderId);
        return seq === undefined || encodeTimelineCursor(orderId, seq) === text;
      }),
    );
  });
});
