/**
 * A place in the feed: just after the event of transaction `txid` with sequence `seq`.
 * Opaque to clients (base64url); the start of the feed is (0, 0).
 */
export interface FeedPosition {
  txid: string;
  seq: number;
}

export const FEED_START: FeedPosition = { txid: '0', seq: 0 };

export function encodeFeedCursor(position: FeedPosition): string {
  return Buffer.from(`e1.${position.txid}.${position.seq}`).toString('base64url');
}

/** undefined when the text is not a cursor this service made. */
export function decodeFeedCursor(text: string): FeedPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(text)) return undefined;
  const match = /^e1\.(\d{1,20})\.(\d{1,16})$/.exec(Buffer.from(text, 'base64url').toString());
  if (!match) return undefined;
  const seq = Number(match[2]);
  if (!Number.isSafeInteger(seq) || BigInt(match[1]) >= 2n ** 64n) return undefined;
  const position = { txid: BigInt(match[1]).toString(), seq };
  // One text per position: no leading zeros, no lenient base64 variants.
  return encodeFeedCursor(position) === text ? position : undefined;
}
