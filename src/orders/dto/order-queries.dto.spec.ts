import 'reflect-metadata';
import type { ArgumentMetadata } from '@nestjs/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validatedWithoutFastPath } from '../../common/http/validated.js';
import { ORDER_LIST_SORTS } from '../order-list-filters.js';
import { ORDER_STATUSES } from '../order-status.js';
import { ListOrdersQuery } from './order-queries.dto.js';

const QUERY: ArgumentMetadata = { type: 'query', metatype: ListOrdersQuery };

async function pipeAnswer(value: unknown): Promise<unknown> {
  try {
    return await validatedWithoutFastPath.transform(value, QUERY);
  } catch {
    return 'refused';
  }
}

/** Query values as a client may send them: numbers near the bounds, lists, near misses. */
const number = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 100 }).map(String) },
  fc.integer({ min: -2, max: 102 }).map(String),
  fc.constantFrom('', '0', '01', '007', '+1', ' 1', '1 ', '1.0', '1e1', '-0', '100', '101'),
  fc.constantFrom('9'.repeat(15), '9'.repeat(16), String(Number.MAX_SAFE_INTEGER)),
);
const status = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .array(fc.constantFrom(...ORDER_STATUSES), { minLength: 1, maxLength: 7 })
      .map((s) => s.join(',')),
  },
  fc
    .array(fc.constantFrom(...ORDER_STATUSES, 'PAID', '', ' paid', 'x'), {
      minLength: 1,
      maxLength: 9,
    })
    .map((s) => s.join(',')),
  fc.constantFrom('paid,', ',paid', 'paid,,pending', 'paid,paid'),
);
const sort = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ORDER_LIST_SORTS) },
  fc.constantFrom('created', '-id', '', 'CREATED_AT'),
);
/** Now and then a parameter outside the fast path's shape, which it must leave to the pipe. */
const other = fc.option(
  fc.record({
    key: fc.constantFrom('email', 'source', 'customer_id', 'nope', '__proto__'),
    value: fc.constantFrom('ada@example.com', 'api', '1', 'x'),
  }),
  { freq: 6 },
);
const query = fc
  .tuple(
    fc.record(
      { page: number, limit: number, sort, status, cursor: fc.string({ maxLength: 20 }) },
      { requiredKeys: [] },
    ),
    other,
  )
  .map(([known, extra]) =>
    extra ? Object.assign(known, { [extra.key]: extra.value }) : known,
  ) as fc.Arbitrary<Record<string, unknown>>;
/**
 * A query parser's object: fast-querystring's (Fastify's: its prototype an empty object
 * without one), or a plain one; an array where a parameter was repeated.
 */
const asParsed = (value: Record<string, unknown>, parserShape: boolean, repeated?: string) => {
  const parsed = parserShape
    ? Object.assign(Object.create(Object.create(null) as object) as object, value)
    : { ...value };
  if (repeated && repeated in parsed) {
    const v = (parsed as Record<string, unknown>)[repeated];
    (parsed as Record<string, unknown>)[repeated] = [v, v];
  }
  return parsed;
};

describe('ListOrdersQuery.fastParse', () => {
  it('never accepts what the ValidationPipe refuses, and returns exactly its instance', async () => {
    let taken = 0;
    await fc.assert(
      fc.asyncProperty(
        query,
        fc.boolean(),
        fc.option(fc.constantFrom('page', 'limit', 'status')),
        async (value, parserShape, repeated) => {
          const input = asParsed(value, parserShape, repeated ?? undefined);
          const fast = ListOrdersQuery.fastParse(input);
          if (fast === undefined) return;
          taken++;
          expect(fast).toStrictEqual(await pipeAnswer(asParsed(value, parserShape)));
        },
      ),
      { numRuns: 4000 },
    );
    // The property says nothing unless the fast path took a good share of the queries.
    expect(taken).toBeGreaterThan(100);
  });

  it('takes the queries of the common shape, the default limit included', async () => {
    for (const value of [
      {},
      { page: '1', limit: '20' },
      { page: '3', limit: '100', sort: 'updated_at', status: 'paid,pending,paid' },
      { cursor: 'abc', limit: '5' },
    ]) {
      const fast = ListOrdersQuery.fastParse(asParsed(value, true));
      expect(fast).toBeInstanceOf(ListOrdersQuery);
      expect(fast).toStrictEqual(await pipeAnswer(value));
    }
    expect(ListOrdersQuery.fastParse({})?.limit).toBe(20);
    expect(ListOrdersQuery.fastParse({ email: 'ada@example.com' })).toBeUndefined();
    // An object with a class, or a prototype that carries keys, is left to the pipe.
    expect(ListOrdersQuery.fastParse(new ListOrdersQuery())).toBeUndefined();
    expect(ListOrdersQuery.fastParse(Object.create({ page: '1' }) as object)).toBeUndefined();
  });
});
