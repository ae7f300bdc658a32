import { Injectable } from '@nestjs/common';
import type { RequestContext } from '../auth/request-context.js';
import { ExpensiveRequests } from '../rate-limit/expensive-requests.js';
import { MAX_ORDER_JSON_BYTES } from './order-size.js';
import { ReadReplicas } from '../database/read-replicas.service.js';
import type { Db } from '../database/sql/db.js';
import { Transactions } from '../database/transactions.js';
import type { ListOrdersQuery } from './dto/order-queries.dto.js';
import type { OrderDto, OrderPageDto } from './dto/order.dto.js';
import { encodeOrderListCursor, type OrderListPosition } from './order-list-cursor.js';
import { isAscending, RANGE_FIRST_MAX, rangeOf, type OrderListSpec } from './order-list-query.js';
import { toOrderListRequest, type OrderListRequest } from './order-list-request.js';
import { toOrderDto } from './order.mapper.js';
import { orderScopeOf, type OrderScope } from './order-scope.js';
import { OrderListRepository, type ListedOrderRow } from './order-list.repository.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';

/**
 * `GET /v1/orders` and `GET /v1/customers/me/orders`: page mode (exact total) or a keyset walk
 * with cursors (no count). The scope comes from the token, never from the query or cursor.
 */
@Injectable()
export class OrderListService {
  constructor(
    private readonly orders: OrderListRepository,
    private readonly transactions: Transactions,
    private readonly replicas: ReadReplicas,
    private readonly expensive: ExpensiveRequests,
  ) {}

  /**
   * Within the caller's tenant and app caps on expensive requests, and the memory the page
   * may take at most: `limit` of the largest orders.
   */
  list(ctx: RequestContext, query: ListOrdersQuery): Promise<OrderPageDto> {
    const memory = query.limit * MAX_ORDER_JSON_BYTES;
    return this.expensive.run(ctx, () => this.read(ctx, query), memory);
  }

  private async read(ctx: RequestContext, query: ListOrdersQuery): Promise<OrderPageDto> {
    const request = toOrderListRequest(query);
    const scope = orderScopeOf(ctx);
    const primary = this.transactions.db;
    const spec: OrderListSpec = {
      sort: request.sort,
      filters: request.filters,
      after: request.mode === 'cursor' ? request.after : undefined,
    };
    if (request.mode === 'page') {
      // Read once, before the page and its count: both then stop at the same instant.
      if (isAscending(request.sort)) spec.horizon = await this.orders.horizon(primary.shared());
      return this.readPageMode(primary.tenant(ctx.tenantId), scope, spec, request);
    }
    // Cursor mode may be served by a replica (CONTRACT 8) that has replayed all the primary
    // held when the horizon was taken (ascending) or when the request came (descending).
    const readCursorPage = (db: Db) =>
      this.readCursorMode(db.tenant(ctx.tenantId), scope, spec, request);
    if (!isAscending(request.sort)) return this.replicas.read(readCursorPage);
    const fence = await this.orders.horizonAndPosition(primary.shared());
    spec.horizon = fence.horizon;
    return this.replicas.readFrom(fence.position, readCursorPage);
  }

  private async readCursorMode(
    tenant: TenantSql,
    scope: OrderScope,
    spec: OrderListSpec,
    request: OrderListRequest & { mode: 'cursor' },
  ): Promise<OrderPageDto> {
    const rangeFirst =
      rangeOf(scope, spec) !== undefined &&
      (await this.orders.countUpTo(tenant, scope, spec, RANGE_FIRST_MAX + 1)) <= RANGE_FIRST_MAX;
    // One row more than the page tells whether more follow.
    const window = { limit: request.limit + 1, offset: 0, rangeFirst };
    const rows = await this.orders.list(tenant, scope, spec, window);
    const page = rows.slice(0, request.limit);
    const hasMore = rows.length > request.limit;
    return {
      data: page.map(toDto),
      meta: {
        limit: request.limit,
        next_cursor: nextCursorOf(request, positionOf(page.at(-1)), hasMore),
        has_more: hasMore,
      },
    };
  }

  private async readPageMode(
    tenant: TenantSql,
    scope: OrderScope,
    spec: OrderListSpec,
    request: OrderListRequest & { mode: 'page' },
  ): Promise<OrderPageDto> {
    const { page, total } = await this.readPage(tenant, scope, spec, request.page, request.limit);
    const hasMore = (request.page - 1) * request.limit + page.length < total;
    return {
      data: page.map(toDto),
      meta: {
        page: request.page,
        limit: request.limit,
        total,
        total_pages: Math.ceil(total / request.limit),
        next_cursor: nextCursorOf(request, positionOf(page.at(-1)), hasMore),
        has_more: hasMore,
      },
    };
  }

  /**
   * Page mode. Page 1 and its total are one query. A later page needs the total first (from
   * the counters, mostly), then reads from whichever end of the list is nearer: the last
   * page of a million orders skips a few rows from the end instead of a million. A list
   * sorted by one timestamp and filtered by a range of the other (rangeOf) needs its total
   * first on page 1 too: with few matches it reads them range-first (RANGE_FIRST_MAX).
   */
  private async readPage(
    tenant: TenantSql,
    scope: OrderScope,
    spec: OrderListSpec,
    pageNumber: number,
    limit: number,
  ): Promise<{ page: ListedOrderRow[]; total: number }> {
    const offset = (pageNumber - 1) * limit;
    const ranged = rangeOf(scope, spec) !== undefined;
    if (offset === 0 && !ranged) {
      const page = await this.orders.list(tenant, scope, spec, { limit, offset }, true);
      // An empty list has no row to carry the total.
      const total = page[0]?.total ?? (await this.orders.count(tenant, scope, spec));
      return { page, total };
    }
    const total = await this.orders.count(tenant, scope, spec);
    if (offset >= total) return { page: [], total };
    const rangeFirst = ranged && total <= RANGE_FIRST_MAX;
    const end = Math.min(offset + limit, total);
    if (offset <= total - end) {
      return {
        page: await this.orders.list(tenant, scope, spec, { limit, offset, rangeFirst }),
        total,
      };
    }
    const fromEnd = { limit: end - offset, offset: total - end, reverse: true, rangeFirst };
    return { page: (await this.orders.list(tenant, scope, spec, fromEnd)).toReversed(), total };
  }
}

function toDto(row: ListedOrderRow): OrderDto {
  return toOrderDto(row, row.items ?? []);
}

function positionOf(row: ListedOrderRow | undefined): OrderListPosition | undefined {
  return row ? { key: row.sort_key, id: row.id } : undefined;
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
