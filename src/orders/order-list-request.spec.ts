import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { AppError } from '../common/errors/app-error.js';
import { ListOrdersQuery } from './dto/order-queries.dto.js';
import { encodeOrderListCursor } from './order-list-cursor.js';
import { toOrderListRequest } from './order-list-request.js';

/** The query as the ValidationPipe hands it over (transformed and valid). */
function query(raw: Record<string, string>): ListOrdersQuery {
  const dto = plainToInstance(ListOrdersQuery, raw);
  expect(validateSync(dto)).toEqual([]);
  return dto;
}

function refusal(raw: Record<string, string>): AppError {
  let caught: unknown;
  try {
    toOrderListRequest(query(raw));
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(AppError);
  expect((caught as AppError).code).toBe('validation_failed');
  return caught as AppError;
}

const cursor = encodeOrderListCursor({
  sort: 'updated_at',
  filters: {
    status: ['paid', 'shipped'],
    updated_after: '2026-01-01T00:00:00.000000Z',
    email: 'Ada@Example.com',
  },
  after: { key: '2026-01-02T00:00:00.123456Z', id: 9 },
});

describe('order list request', () => {
  it('page mode: defaults, normal-form filters', () => {
    expect(toOrderListRequest(query({}))).toEqual({
      mode: 'page',
      page: 1,
      limit: 20,
      sort: '-created_at',
      filters: {},
    });
    expect(
      toOrderListRequest(
        query({
          page: '3',
          limit: '5',
          status: 'shipped,paid,shipped',
          created_after: '2026-01-01T03:00:00+03:00',
          customer_id: '4',
        }),
      ),
    ).toEqual({
      mode: 'page',
      page: 3,
      limit: 5,
      sort: '-created_at',
      filters: {
        status: ['paid', 'shipped'],
        created_after: '2026-01-01T00:00:00.000000Z',
        customer_id: 4,
      },
    });
  });

  it("cursor mode: the cursor's sort and filters apply; the limit is the request's", () => {
    expect(toOrderListRequest(query({ cursor, limit: '7' }))).toEqual({
      mode: 'cursor',
      limit: 7,
      sort: 'updated_at',
      filters: {
        status: ['paid', 'shipped'],
        updated_after: '2026-01-01T00:00:00.000000Z',
        email: 'Ada@Example.com',
      },
      after: { key: '2026-01-02T00:00:00.123456Z', id: 9 },
    });
  });

  it('accepts the same filters written another way', () => {
    const request = toOrderListRequest(
      query({
        cursor,
        sort: 'updated_at',
        status: 'shipped,paid',
        updated_after: '2025-12-31T19:00:00.0-05:00',
        email: 'ada@example.COM',
      }),
    );
    expect(request.mode).toBe('cursor');
  });

  it('refuses page with cursor, and a cursor it did not make', () => {
    expect(refusal({ cursor, page: '1' }).options.details).toEqual([
      { field: 'page', message: 'cannot be combined with cursor' },
    ]);
    expect(refusal({ cursor: 'bm90LWEtY3Vyc29y' }).options.details).toEqual([
      { field: 'cursor', message: 'must be a meta.next_cursor from this list' },
    ]);
  });

  it('names every sort or filter that differs from the cursor', () => {
    const error = refusal({
      cursor,
      sort: '-updated_at',
      status: 'paid',
      updated_after: '2026-01-01T00:00:00.000001Z',
      email: 'eve@example.com',
      source: 'api',
    });
    expect(error.options.details?.map((d) => d.field)).toEqual([
      'sort',
      'status',
      'updated_after',
      'email',
      'source',
    ]);
    expect(JSON.stringify(error.options.details)).not.toContain('Ada');
  });
});
