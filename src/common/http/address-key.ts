import { isIP } from 'node:net';

/**
 * The key a client address is counted under, or undefined when `value` is not an address.
 * IPv6 is keyed by its /64: one subscriber holds a whole /64 and could rotate through it.
 * IPv6 forms that carry an IPv4 address (mapped ::ffff:0:0/96, translated ::ffff:0:0:0/96,
 * NAT64 64:ff9b::/96, the old compatible ::/96) are keyed by that IPv4 address, so they
 * neither dodge its count nor pool unrelated clients into one /64.
 */
export function addressKey(value: string): string | undefined {
  const text = value.trim();
  const family = isIP(text);
  if (family === 4) return text;
  if (family !== 6) return undefined;
  const words = expandIpv6(text);
  const embedded = embeddedIpv4(words);
  if (embedded) return embedded;
  return `${words
    .slice(0, 4)
    .map((w) => w.toString(16))
    .join(':')}::/64`;
}

/**
 * The end user's address from `X-Customer-IP` (docs/BEHAVIOUR.md#rate-limits): one value, else
 * ignored.
 */
export function customerIpKey(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' ? addressKey(header) : undefined;
}

function embeddedIpv4(w: number[]): string | undefined {
  const zeros = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  const mapped = zeros(0, 5) && w[5] === 0xffff;
  const translated = zeros(0, 4) && w[4] === 0xffff && w[5] === 0;
  const nat64 = w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6);
  // ::/96 but not :: or ::1 (unspecified, loopback).
  const compatible = zeros(0, 6) && (w[6] !== 0 || w[7] > 1);
  if (!mapped && !translated && !nat64 && !compatible) return undefined;
  return [w[6] >> 8, w[6] & 0xff, w[7] >> 8, w[7] & 0xff].join('.');
}

/** The eight 16-bit words of a valid IPv6 address (zone dropped). */
function expandIpv6(address: string): number[] {
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
  return [...left, ...zeros, ...right].map((h) => parseInt(h, 16));
}
