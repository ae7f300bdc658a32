/**
 * A place in an order's timeline: just after its event with sequence `seq`. Opaque to clients
 * (base64url); it names its order, so a cursor of one order is refused on another.
 */
export function encodeTimelineCursor(orderId: number, seq: number): string {
  return Buffer.from(`t1.${orderId}.${seq}`).toString('base64url');
}

/** The sequence after which the timeline of `orderId` continues; undefined when not its cursor. */
export function decodeTimelineCursor(text: string, orderId: number): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(text)) return undefined;
  const match = /^t1\.(\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(text, 'base64url').toString());
  if (!match || Number(match[1]) !== orderId) return undefined;
  const seq = Number(match[2]);
  // One text per position: no leading zeros, no lenient base64 variants.
  return Number.isSafeInteger(seq) && encodeTimelineCursor(orderId, seq) === text ? seq : undefined;
}
