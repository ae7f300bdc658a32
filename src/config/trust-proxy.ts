import { isIP } from 'node:net';
import { registerDecorator } from 'class-validator';

/** Fastify's `trustProxy`: off, a hop count, or the proxies' addresses/CIDRs. */
export type TrustProxy = false | number | string[];

const NOT_ALLOWED = Symbol('not allowed');

/**
 * `TRUST_PROXY`: unset/`false` → off; digits → hop count; else a comma-separated list of
 * addresses or CIDRs. `true` is refused: trusting any X-Forwarded-For lets every client
 * choose the address its limits are counted under.
 */
export function toTrustProxy({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string') return value;
  const v = value.trim();
  if (v === '' || v.toLowerCase() === 'false' || v === '0') return false;
  if (/^\d{1,3}$/.test(v)) return Number(v);
  const list = v.split(',').map((p) => p.trim());
  return list.every(isAddressOrCidr) ? list : NOT_ALLOWED;
}

export function isAddressOrCidr(value: string): boolean {
  const [address, bits, extra] = value.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  // Shorter prefixes (0.0.0.0/0, ::/0…) would trust everyone: not a list of proxies.
  const [shortest, longest] = family === 4 ? [8, 32] : [8, 128];
  return Number(bits) >= shortest && Number(bits) <= longest;
}

export function IsTrustProxy(): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'isTrustProxy',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message:
          'TRUST_PROXY must be a hop count or a comma-separated list of proxy addresses/CIDRs; trusting any X-Forwarded-For is refused',
      },
      validator: {
        validate: (value: unknown) =>
          value === false ||
          (typeof value === 'number' && Number.isInteger(value) && value >= 1) ||
          (Array.isArray(value) && value.length > 0),
      },
    });
  };
}

/**
 * What Fastify's `trustProxy` gets. A hop count becomes a function: Fastify 5 itself now
 * ignores numeric hop counts (a direct client could add hops of its own), so a hop count is
 * only right when every connection comes through that many proxies (README); a list of
 * proxy addresses is the safer setting.
 */
export function fastifyTrustProxy(
  setting: TrustProxy,
): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  return (_address, hop) => hop < setting;
}
