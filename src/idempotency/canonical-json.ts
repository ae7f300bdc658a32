import { createHash, createHmac } from 'node:crypto';

/**
 * JSON with object keys sorted at every level, so that `{"a":1,"b":2}` and `{"b":2,"a":1}`
 * are the same request. Arrays keep their order (it is meaningful).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What is stored of an idempotent request's body: an HMAC under the server pepper, so that a
 * body that is little more than an email (an erasure request) cannot be found again by hashing
 * candidate emails (docs/SECURITY.md#personal-data).
 */
export function requestHash(body: unknown, pepper: Buffer): Buffer {
  return createHmac('sha256', pepper)
    .update(canonicalJson(body ?? null))
    .digest();
}

/**
 * The plain SHA-256 that releases before 0.2 stored. Still accepted for a replay until the
 * last of those keys expires (IDEMPOTENCY_TTL_HOURS after the upgrade); then this goes.
 */
export function legacyRequestHash(body: unknown): Buffer {
  return createHash('sha256')
    .update(canonicalJson(body ?? null))
    .digest();
}
