import { isIP } from 'node:net';

/**
 * The end user's address as the storefront backend passes it in `X-Customer-IP`, as the key
 * its limits count under, or undefined when absent or malformed (then ignored, CONTRACT 3.6).
 * IPv6 is keyed by its /64: one subscriber holds a whole /64 and could rotate through it.
 * An IPv4-mapped IPv6 address is its IPv4 address.
 */
export function customerIpKey(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const value = header.trim();
  const family = isIP(value);
  if (family === 4) return value;
  if (family !== 6) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(value);
  if (mapped) return mapped[1];
  return `${expandIpv6(value).slice(0, 4).join(':')}::/64`;
}

/** The eight hextets of a valid IPv6 address, lower-case, without zone or leading zeros. */
function expandIpv6(address: string): string[] {
  let text = address.split('%')[0].toLowerCase();
  const ipv4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (ipv4) {
    const [a, b, c, d] = ipv4.slice(1).map(Number);
    text =
      text.slice(0, ipv4.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((h) => parseInt(h, 16).toString(16));
}
