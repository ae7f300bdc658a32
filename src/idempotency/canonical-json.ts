import { createHash } from 'node:crypto';

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

export function requestHash(body: unknown): Buffer {
  return createHash('sha256')
    .update(canonicalJson(body ?? null))
    .digest();
}
