import ipaddr from 'ipaddr.js';

/**
 * Whether a webhook may be sent to this address: only globally routable unicast. Loopback,
 * private (RFC 1918, fc00::/7), link-local (169.254/16 with the cloud metadata address,
 * fe80::/10), carrier-grade NAT (100.64/10, Alibaba's metadata address), unspecified,
 * multicast, broadcast, reserved and documentation ranges are refused, and so are the IPv6
 * forms that embed an IPv4 address (mapped, NAT64, 6to4, Teredo) unless the embedded
 * address itself passes. Anything that does not parse is refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return isPublicAddress(v6.toIPv4Address().toString());
    const embedded = embeddedIPv4(v6);
    if (embedded !== undefined) return isPublicAddress(embedded);
  }
  return parsed.range() === 'unicast';
}

/**
 * The IPv4 address carried by a NAT64 (64:ff9b::/96), 6to4 (2002::/16) or deprecated
 * IPv4-compatible (::/96) address.
 */
function embeddedIPv4(v6: ipaddr.IPv6): string | undefined {
  const parts = v6.parts;
  const range = v6.range();
  if (parts.slice(0, 6).every((p) => p === 0)) return ipv4From(parts[6], parts[7]);
  if (range === 'rfc6052') return ipv4From(parts[6], parts[7]);
  if (range === '6to4') return ipv4From(parts[1], parts[2]);
  return undefined;
}

function ipv4From(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}
