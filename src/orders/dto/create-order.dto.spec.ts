import 'reflect-metadata';
import type { ArgumentMetadata } from '@nestjs/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validatedWithoutFastPath } from '../../common/http/validated.js';
import { isSingleLine } from '../../common/string-rules.js';
import { CreateOrderDto } from './create-order.dto.js';

const BODY: ArgumentMetadata = { type: 'body', metatype: CreateOrderDto };

/** What the ValidationPipe alone answers: the instance, or that it refused. */
async function pipeAnswer(value: unknown): Promise<unknown> {
  try {
    return await validatedWithoutFastPath.transform(value, BODY);
  } catch {
    return 'refused';
  }
}

/**
 * Valid text, the bounds included: 200 characters, 200 code points of two UTF-16 units; on one
 * line and not blank (string-rules.ts).
 */
const validText = fc.oneof(
  fc.string({ minLength: 1, maxLength: 20 }).filter((text) => isSingleLine(text, 1, 200)),
  fc.constantFrom('a'.repeat(200), '😀'.repeat(200), ' a ', 'é'),
);
const validId = fc.oneof(
  fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  fc.constantFrom(1, Number.MAX_SAFE_INTEGER),
);

/** Bodies the decorators accept: every shape the fast path is meant to take. */
const validBody = fc.record({
  customer: fc.record(
    {
      id: validId,
      name: validText,
      email: fc.constantFrom('ada@example.com', 'x.y+z@sub.example.org', 'A@EXAMPLE.COM'),
      phone: validText,
    },
    { requiredKeys: ['name', 'email'] },
  ),
  shipping_address: fc.record(
    {
      country: validText,
      city: validText,
      district: validText,
      address: validText,
      postal_code: validText,
    },
    { requiredKeys: ['country', 'city', 'address'] },
  ),
  items: fc.array(
    fc.record({
      product_id: validId,
      quantity: fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.constantFrom(1, 10_000)),
    }),
    { minLength: 1, maxLength: 100 },
  ),
});

/** Values just past a bound, of a wrong type, or absent. */
const edge = fc.constantFrom<unknown>(
  '',
  ' ',
  '\u3164',
  'a\nb',
  'a\tb',
  '\u0085',
  'a'.repeat(201),
  '😀'.repeat(201),
  'no-at',
  'a@b',
  `${'a'.repeat(250)}@example.com`,
  0,
  -1,
  10_001,
  Number.MAX_SAFE_INTEGER + 1,
  1.5,
  '1',
  null,
  true,
  [],
  {},
  [{}],
  [[]],
  Array.from({ length: 101 }, () => ({ product_id: 1, quantity: 1 })),
);
const PATHS: (string | number)[][] = [
  [],
  ['customer'],
  ['customer', 'id'],
  ['customer', 'name'],
  ['customer', 'email'],
  ['customer', 'phone'],
  ['shipping_address'],
  ['shipping_address', 'country'],
  ['shipping_address', 'city'],
  ['shipping_address', 'district'],
  ['shipping_address', 'address'],
  ['shipping_address', 'postal_code'],
  ['items'],
  ['items', 0],
  ['items', 0, 'product_id'],
  ['items', 0, 'quantity'],
];
const mutation = fc.record({
  path: fc.constantFrom(...PATHS),
  kind: fc.constantFrom('set', 'delete', 'extra key'),
  value: edge,
});

/** A valid body with one field changed, removed, or an unknown key added beside it. */
function mutated(body: unknown, m: { path: (string | number)[]; kind: string; value: unknown }) {
  const root = { body: structuredClone(body) } as Record<string | number, unknown>;
  const path = ['body', ...m.path];
  const key = path.at(-1)!;
  let parent = root;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  if (m.kind === 'set') parent[key] = m.value;
  else if (m.kind === 'delete') delete parent[key];
  else if (typeof parent[key] === 'object' && parent[key] !== null) {
    (parent[key] as Record<string, unknown>).extra = m.value;
  }
  return root.body;
}

describe('CreateOrderDto.fastParse', () => {
  it('never accepts what the ValidationPipe refuses, and returns exactly its instance', async () => {
    await fc.assert(
      fc.asyncProperty(validBody, mutation, async (valid, m) => {
        const value = mutated(valid, m);
        const fast = CreateOrderDto.fastParse(structuredClone(value));
        if (fast === undefined) return;
        expect(fast).toStrictEqual(await pipeAnswer(structuredClone(value)));
      }),
      { numRuns: 3000 },
    );
  });

  it('takes every body of the common shape (else the hot path would fall back unseen)', async () => {
    await fc.assert(
      fc.asyncProperty(validBody, async (value) => {
        const fast = CreateOrderDto.fastParse(structuredClone(value));
        expect(fast).toBeInstanceOf(CreateOrderDto);
        expect(fast).toStrictEqual(await pipeAnswer(structuredClone(value)));
      }),
      { numRuns: 300 },
    );
  });

  it('leaves null, wrong types and unknown keys to the pipe', () => {
    const valid = {
      customer: { name: 'Ada', email: 'ada@example.com' },
      shipping_address: { country: 'US', city: 'X', address: 'Y' },
      items: [{ product_id: 1, quantity: 1 }],
    };
    expect(CreateOrderDto.fastParse(valid)).toBeInstanceOf(CreateOrderDto);
    for (const changed of [
      { ...valid, customer: { ...valid.customer, phone: null } },
      { ...valid, items: [{ product_id: '1', quantity: 1 }] },
      { ...valid, items: [] },
      { ...valid, note: 'x' },
      { ...valid, shipping_address: [valid.shipping_address] },
    ]) {
      expect(CreateOrderDto.fastParse(changed)).toBeUndefined();
    }
  });
});
