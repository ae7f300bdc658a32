import { Injectable } from '@nestjs/common';
import type { RequestContext } from '../auth/request-context.js';
import { Transactions } from '../common/transactions.js';
import type { ListOrdersQuery } from './dto/order-queries.dto.js';
import type { OrderPageDto } from './dto/order.dto.js';
import { encodeOrderListCursor, type OrderListPosition } from './order-list-cursor.js';
import { readListHorizon } from './order-list-horizon.js';
import { isAscending, type OrderListSpec } from './order-list-query.js';
import { toOrderListRequest, type OrderListRequest } from './order-list-request.js';
import { toOrderDto } from './order.mapper.js';
import { orderScopeOf } from './order-scope.js';
import { OrdersRepository } from './orders.repository.js';

/**
 * `GET /v1/orders` and `GET /v1/customers/me/orders`: page mode (exact total) or a keyset walk
 * with cursors (no count). The scope comes from the token, never from the query or cursor.
 */
@Injectable()
export class OrderListService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly transactions: Transactions,
  ) {}

  async list(ctx: RequestContext, query: ListOrdersQuery): Promise<OrderPageDto> {
    const request = toOrderListRequest(query);
    const m = this.transactions.manager;
    const scope = orderScopeOf(ctx);
    const spec: OrderListSpec = {
      sort: request.sort,
      filters: request.filters,
      after: request.mode === 'cursor' ? request.after : undefined,
      // Read once, before the page and its count: both then stop at the same instant.
      horizon: isAscending(request.sort) ? await readListHorizon(m) : undefined,
    };
    const offset = request.mode === 'page' ? (request.page - 1) * request.limit : 0;
    // One row more than the page tells whether more follow.
    const [rows, total] = await Promise.all([
      this.orders.list(m, scope, spec, request.limit + 1, offset),
      request.mode === 'page' ? this.orders.count(m, scope, spec) : undefined,
    ]);
    const page = rows.slice(0, request.limit);
    const hasMore = rows.length > request.limit;
    const items = await this.orders.items(
      m,
      ctx.tenantId,
      page.map((r) => r.id),
    );
    const data = page.map((r) => toOrderDto(r, items.get(r.id) ?? []));
    const last = page.at(-1);
    const nextCursor = nextCursorOf(
      request,
      last ? { key: last.sort_key, id: last.id } : undefined,
      hasMore,
    );
    if (request.mode === 'cursor') {
      return { data, meta: { limit: request.limit, next_cursor: nextCursor, has_more: hasMore } };
    }
    return {
      data,
      meta: {
        page: request.page,
        limit: request.limit,
        total: total!,
        total_pages: Math.ceil(total! / request.limit),
        next_cursor: nextCursor,
        has_more: hasMore,
      },
    };
  }
}

/**
 * Where the walk goes on. Descending: after the page's last order while more follow, else
 * null (orders written later land ahead of the walk, never behind it). Ascending: always
 * after the last order served (or the cursor given, when the page is empty), even when
 * `has_more` is false: orders still being written, or committed after the horizon passes
 * them, follow later, and the same cursor finds them.
 */
function nextCursorOf(
  request: OrderListRequest,
  last: OrderListPosition | undefined,
  hasMore: boolean,
): string | null {
  const position = last ?? (request.mode === 'cursor' ? request.after : undefined);
  if (!position || (!isAscending(request.sort) && !hasMore)) return null;
  return encodeOrderListCursor({ sort: request.sort, filters: request.filters, after: position });
}
