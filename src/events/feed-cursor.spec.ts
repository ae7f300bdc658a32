import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFeedCursor, encodeFeedCursor, FEED_START } from './feed-cursor.js';

describe('feed cursor', () => {
  it('round-trips every position', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        (txid, seq) => {
          const position = { txid: txid.toString(), seq };
          expect(decodeFeedCursor(encodeFeedCursor(position))).toEqual(position);
        },
      ),
    );
    expect(decodeFeedCursor(encodeFeedCursor(FEED_START))).toEqual(FEED_START);
  });

  it('refuses anything it did not make', () => {
    for (const text of ['', 'abc', '!!!', 'e1.1.2', Buffer.from('e1.-1.2').toString('base64url')]) {
      expect(decodeFeedCursor(text)).toBeUndefined();
    }
    expect(
      decodeFeedCursor(Buffer.from(`e1.${2n ** 64n}.1`).toString('base64url')),
    ).toBeUndefined();
    fc.assert(
      fc.property(fc.string(), (text) => {
        const decoded = decodeFeedCursor(text);
        return decoded === undefined || encodeFeedCursor(decoded) === text;
      }),
    );
  });
});
