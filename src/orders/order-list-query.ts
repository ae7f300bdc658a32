import type { OrderListPosition } from './order-list-cursor.js';
import type { OrderListFilters, OrderListSort } from './order-list-filters.js';
import type { OrderScope } from './order-scope.js';

/** What to read: the walk's sort and filters, where it stands, and (ascending) its horizon. */
export interface OrderListSpec {
  sort: OrderListSort;
  filters: OrderListFilters;
  /** Cursor mode: only orders after this one in the sort order. */
  after?: OrderListPosition;
  /** Ascending sorts: only orders whose sort key is below this instant (OrderListRepository.horizon). */
  horizon?: string;
}

const SORTS: Record<OrderListSort, { column: 'created_at' | 'updated_at'; ascending: boolean }> = {
  '-created_at': { column: 'created_at', ascending: false },
  created_at: { column: 'created_at', ascending: true },
  '-updated_at': { column: 'updated_at', ascending: false },
  updated_at: { column: 'updated_at', ascending: true },
};

/** The timestamp a sort orders by, and its direction. */
export function sortOf(sort: OrderListSort): {
  column: 'created_at' | 'updated_at';
  ascending: boolean;
} {
  return SORTS[sort];
}

export function isAscending(sort: OrderListSort): boolean {
  return SORTS[sort].ascending;
}

/** Which rows of the sorted list a page takes; `reverse` reads them from the other end. */
export interface PageWindow {
  limit: number;
  offset: number;
  /** Read in the opposite order (a page past the middle is nearer the other end). */
  reverse?: boolean;
  /**
   * Read every matching order through the index of the range filter (`rangeOf`), then sort
   * them: for few matches (RANGE_FIRST_MAX), where a walk in sort order could pass most of
   * the tenant before it finds a page of them.
   */
  rangeFirst?: boolean;
}

/**
 * Up to this many matching orders, a list sorted by one timestamp and filtered by a range of
 * the other reads range-first: the range's index, index-only (the list indexes carry the
 * other timestamp, migration 1765000000050), then an in-memory sort; about 5 ms at most.
 * Beyond, matches are dense enough that walking the sort index, testing the range in the
 * index, finds a page sooner (and the sort of a deep page would be large).
 */
export const RANGE_FIRST_MAX = 50_000;

/** Up to this many orders outside a range are counted to subtract them from the counters. */
export const COMPLEMENT_COUNT_MAX = 10_000;

export const RANGE_FILTERS: readonly string[] = [
  'created_after',
  'created_before',
  'updated_after',
  'updated_before',
];

/**
 * The timestamp a list's range filter bounds when the list is sorted by the other one (a
 * walk in sort order tests the range on every order it passes; the range's own index holds
 * exactly the matches), for lists of the whole tenant filtered by nothing but statuses and
 * timestamp ranges: the other filters select by indexes of their own, and one customer's
 * orders are few.
 */
export function rangeOf(
  scope: OrderScope,
  spec: OrderListSpec,
): 'created_at' | 'updated_at' | undefined {
  if (scope.kind !== 'tenant') return undefined;
  const { created_after, created_before, updated_after, updated_before } = spec.filters;
  const others = Object.entries(spec.filters).filter(
    ([name, v]) => v !== undefined && name !== 'status' && !RANGE_FILTERS.includes(name),
  );
  if (others.length > 0) return undefined;
  const sorted = SORTS[spec.sort].column;
  if (sorted === 'updated_at' && (created_after ?? created_before) !== undefined) {
    return 'created_at';
  }
  if (sorted === 'created_at' && (updated_after ?? updated_before) !== undefined) {
    return 'updated_at';
  }
  return undefined;
}
