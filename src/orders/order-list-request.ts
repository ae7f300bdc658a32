import { AppError, type ErrorDetail } from '../common/errors/app-error.js';
import { toCanonicalInstant } from '../common/rfc3339.js';
import type { ListOrdersQuery } from './dto/order-queries.dto.js';
import {
  decodeOrderListCursor,
  type OrderListCursor,
  type OrderListPosition,
} from './order-list-cursor.js';
import {
  DEFAULT_ORDER_LIST_SORT,
  normalStatuses,
  ORDER_LIST_FILTERS,
  sameFilterValue,
  type OrderListFilters,
  type OrderListSort,
} from './order-list-filters.js';

/** What one list request asks for, validated and in normal form. */
export type OrderListRequest =
  | {
      mode: 'page';
      page: number;
      limit: number;
      sort: OrderListSort;
      filters: OrderListFilters;
    }
  | {
      mode: 'cursor';
      limit: number;
      sort: OrderListSort;
      filters: OrderListFilters;
      after: OrderListPosition;
    };

/**
 * The validated query → a page request, or a cursor request that continues the cursor's walk.
 * With a cursor, the cursor's sort and filters apply; those the query repeats must say the
 * same thing (a changed one would silently mix two walks), and `page` is refused.
 */
export function toOrderListRequest(query: ListOrdersQuery): OrderListRequest {
  const filters = filtersOf(query);
  if (query.cursor === undefined) {
    return {
      mode: 'page',
      page: query.page ?? 1,
      limit: query.limit,
      sort: query.sort ?? DEFAULT_ORDER_LIST_SORT,
      filters,
    };
  }
  if (query.page !== undefined) {
    throw invalid([{ field: 'page', message: 'cannot be combined with cursor' }]);
  }
  const cursor = decodeOrderListCursor(query.cursor);
  if (!cursor) {
    throw invalid([{ field: 'cursor', message: 'must be a meta.next_cursor from this list' }]);
  }
  const conflicts = conflictsWith(cursor, query.sort, filters);
  if (conflicts.length > 0) throw invalid(conflicts);
  return {
    mode: 'cursor',
    limit: query.limit,
    sort: cursor.sort,
    filters: cursor.filters,
    after: cursor.after,
  };
}

function filtersOf(query: ListOrdersQuery): OrderListFilters {
  const instant = (text: string | undefined) =>
    text === undefined ? undefined : toCanonicalInstant(text);
  const filters: OrderListFilters = {
    status: query.status && normalStatuses(query.status),
    created_after: instant(query.created_after),
    created_before: instant(query.created_before),
    updated_after: instant(query.updated_after),
    updated_before: instant(query.updated_before),
    email: query.email,
    customer_id: query.customer_id,
    source: query.source,
    marketplace: query.marketplace,
    external_order_id: query.external_order_id,
    tag: query.tag,
    metadata: query.metadata,
  };
  for (const name of ORDER_LIST_FILTERS) if (filters[name] === undefined) delete filters[name];
  return filters;
}

function conflictsWith(
  cursor: OrderListCursor,
  sort: OrderListSort | undefined,
  given: OrderListFilters,
): ErrorDetail[] {
  const conflicts: ErrorDetail[] = [];
  if (sort !== undefined && sort !== cursor.sort) {
    conflicts.push({ field: 'sort', message: `differs from the cursor's (${cursor.sort})` });
  }
  for (const name of ORDER_LIST_FILTERS) {
    const value = given[name];
    if (value === undefined) continue;
    const walked = cursor.filters[name];
    if (walked === undefined || !sameFilterValue(name, value, walked)) {
      conflicts.push({
        field: name,
        message:
          walked === undefined
            ? 'is not a filter of the cursor; omit it or start a new walk'
            : "differs from the cursor's; omit it or repeat the value the walk started with",
      });
    }
  }
  return conflicts;
}

function invalid(details: ErrorDetail[]): AppError {
  return new AppError('validation_failed', `${details[0].field} ${details[0].message}`, {
    details,
  });
}
