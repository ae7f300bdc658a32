import { describe, expect, it } from 'vitest';
import { canonicalJson, requestHash } from './canonical-json.js';
import { parseIdempotencyKey } from './idempotency-key.js';

describe('parseIdempotencyKey', () => {
  it.each([
    ['abc', 'abc'],
    ['a'.repeat(255), 'a'.repeat(255)],
    ['with spaces and ~!@#', 'with spaces and ~!@#'],
    ['"abc"', 'abc'],
    ['"quote \\" and \\\\ backslash"', 'quote " and \\ backslash'],
  ])('accepts %j', (header, key) => {
    expect(parseIdempotencyKey(header)).toBe(key);
  });

  it('is undefined when absent', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });

  it.each(['', 'a'.repeat(256), 'tab\there', 'é', '""', ['a', 'b']])(
    'refuses %j with validation_failed',
    (header) => {
      expect(() => parseIdempotencyKey(header)).toThrow(
        expect.objectContaining({ code: 'validation_failed' }),
      );
    },
  );
});

describe('canonical JSON', () => {
  it('ignores key order at every level but keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,1]},"b":1}',
    );
    const pepper = Buffer.alloc(32, 7);
    expect(requestHash({ a: 1, b: 2 }, pepper).equals(requestHash({ b: 2, a: 1 }, pepper))).toBe(
      true,
    );
    expect(requestHash({ a: [1, 2] }, pepper).equals(requestHash({ a: [2, 1] }, pepper))).toBe(
      false,
    );
    // Keyed: without the pepper, hashing a guessed body finds nothing.
    expect(
      requestHash({ email: 'a@b.io' }, pepper).equals(
        requestHash({ email: 'a@b.io' }, Buffer.alloc(32)),
      ),
    ).toBe(false);
  });
});
