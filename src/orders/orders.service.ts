import { Injectable } from '@nestjs/common';
import { AuditRepository } from '../audit/audit.repository.js';
import type { AppContext, RequestContext } from '../auth/request-context.js';
import type { AdminContext } from '../common/admin-context.js';
import { AppError, type ErrorDetail } from '../common/errors/app-error.js';
import type { VersionPrecondition } from '../common/http/entity-tags.js';
import { ExpensiveRequests } from '../rate-limit/expensive-requests.js';
import { Transactions } from '../database/transactions.js';
import type { EventPageQuery } from '../events/dto/event.dto.js';
import { eventPageJson, fitEventPage, PAGE_BODY_LIMIT } from '../events/event-page.js';
import { decodeTimelineCursor, encodeTimelineCursor } from '../events/timeline-cursor.js';
import { EventsRepository } from '../events/events.repository.js';
import type { CreateOrderDto } from './dto/create-order.dto.js';
import type { OrderDto } from './dto/order.dto.js';
import { toOrderDto } from './order.mapper.js';
import { OrderCatalogRepository } from './order-catalog.repository.js';
import { orderDraft } from './order-draft.js';
import { orderScopeOf, WHOLE_TENANT_SCOPE } from './order-scope.js';
import type { OrderStatus } from './order-status.js';
import { orderNotFound, OrderWriter } from './order-writer.js';
import { OrdersRepository } from './orders.repository.js';
import { statusPlan } from './operations/change-plans.js';
import { FulfillmentsRepository } from './operations/fulfillments.repository.js';
import { actorOf } from './order-actor.js';
import { RefundsRepository } from './operations/refunds.repository.js';
import { inventoryChanged } from '../products/product-events.js';
import { type StockMove, StockRepository } from '../products/stock.repository.js';
import { insufficientStock, stockDelta } from './order-stock.js';

@Injectable()
export class OrdersService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly catalog: OrderCatalogRepository,
    private readonly writer: OrderWriter,
    private readonly transactions: Transactions,
    private readonly eventsRepository: EventsRepository,
    private readonly expensive: ExpensiveRequests,
    private readonly audit: AuditRepository,
    private readonly fulfillments: FulfillmentsRepository,
    private readonly refunds: RefundsRepository,
    private readonly stock: StockRepository,
  ) {}

  /**
   * Prices from the active catalog now; the stock of tracked products taken (all lines or
   * none: 422 `insufficient_stock`, and the unit of work rolls back); then the order writer's
   * one statement and the events. Joins an ambient unit of work (Idempotency-Key).
   */
  create(ctx: AppContext, dto: CreateOrderDto): Promise<OrderDto> {
    return this.transactions.run(async (db) => {
      const tenant = db.tenant(ctx.tenantId);
      const products = await this.catalog.activeProducts(tenant, [
        ...new Set(dto.items.map((i) => i.product_id)),
      ]);
      const unknown: ErrorDetail[] = dto.items
        .map((item, index) => ({ item, index }))
        .filter(({ item }) => !products.has(item.product_id))
        .map(({ item, index }) => ({
          field: `items[${index}].product_id`,
          message: `product ${item.product_id} is not in the active catalog`,
        }));
      if (unknown.length > 0) {
        throw new AppError(
          'unknown_product',
          `${unknown.length} order line(s) name a product that is not in the active catalog`,
          { details: unknown },
        );
      }
      // Stock only when the catalog says a product tracks it: the untracked path stays as it was.
      let moves: StockMove[] = [];
      if (dto.items.some((item) => products.get(item.product_id)!.inventory_tracked)) {
        const taken = await this.stock.take(
          tenant,
          stockDelta(dto.items.map((i) => ({ productId: i.product_id, quantity: i.quantity }))),
        );
        if ('shortages' in taken) throw insufficientStock(dto.items, taken.shortages);
        moves = taken.moves;
      }
      const held = new Set(moves.map((m) => m.product.id));
      const draft = orderDraft({
        customer: dto.customer,
        shipping: dto.shipping_address,
        lines: dto.items.map((item) => {
          const product = products.get(item.product_id)!;
          return {
            productId: item.product_id,
            sku: product.sku,
            name: product.name,
            quantity: item.quantity,
            unitPriceMinor: product.price_minor,
            stockHeld: held.has(item.product_id) ? item.quantity : 0,
          };
        }),
        origin: { source: 'api' },
        appId: ctx.appId,
      });
      return this.writer.write(tenant, draft, (order) =>
        inventoryChanged(moves, 'order', { orderId: order.id }),
      );
    });
  }

  /** Unknown, another tenant's or (for a customer) another customer's: the same 404. */
  async get(ctx: RequestContext, id: number): Promise<OrderDto> {
    const row = await this.orders.findWithItems(
      this.transactions.db.tenant(ctx.tenantId),
      orderScopeOf(ctx),
      id,
    );
    if (!row) throw notFound(id);
    return toOrderDto(row, row.items ?? []);
  }

  /**
   * A status change: by an app through the API (actor `app:<client_id>`), or by an admin
   * through the CLI, naming the tenant (actor the admin, and an `order.set_status` audit row).
   * The change, its history row, its `order.status_changed` event and the audit row commit in
   * one unit of work, or none of them. The row is locked for the check and the update, so
   * concurrent changes serialise: the first wins, the others see its result and get 409 if
   * their transition no longer applies.
   */
  changeStatus(
    ctx: AppContext,
    id: number,
    to: OrderStatus,
    ifMatch?: VersionPrecondition,
  ): Promise<OrderDto>;
  changeStatus(
    admin: AdminContext,
    tenantId: number,
    id: number,
    to: OrderStatus,
  ): Promise<OrderDto>;
  changeStatus(
    ctx: AppContext | AdminContext,
    ...rest: [number, OrderStatus, VersionPrecondition?] | [number, number, OrderStatus]
  ): Promise<OrderDto> {
    const [tenantId, id, to, ifMatch] =
      ctx.kind === 'admin'
        ? [...(rest as [number, number, OrderStatus]), undefined]
        : [ctx.tenantId, ...(rest as [number, OrderStatus, VersionPrecondition?])];
    const actor = ctx.kind === 'admin' ? ctx.actor : actorOf(ctx);
    return this.transactions.run(async (db) => {
      const tenant = db.tenant(tenantId);
      const { order } = await this.writer.change(
        { db: tenant, orderId: id, actor, ifMatch },
        (current) => statusPlan(current, to, this.fulfillments, this.refunds),
      );
      if (ctx.kind === 'admin') {
        await this.audit.record(tenant, ctx, {
          action: 'order.set_status',
          targetType: 'order',
          targetId: id,
          details: { status: order.status },
        });
      }
      return order;
    });
  }

  /**
   * A page of the order's events, oldest first, as JSON text (events/event-page.ts); an
   * unknown or foreign order is 404. An expensive request.
   */
  timeline(ctx: AppContext, id: number, query: EventPageQuery): Promise<string> {
    const after = query.after === undefined ? 0 : decodeTimelineCursor(query.after, id);
    if (after === undefined) {
      throw new AppError('validation_failed', "after is not a cursor of this order's timeline", {
        details: [{ field: 'after', message: "must be a next_cursor of this order's timeline" }],
      });
    }
    return this.expensive.run(
      ctx,
      async () => {
        const tenant = this.transactions.db.tenant(ctx.tenantId);
        // One after the other: one connection at a time, as the caps count it.
        if (!(await this.orders.exists(tenant, WHOLE_TENANT_SCOPE, id))) throw notFound(id);
        const rows = await this.eventsRepository.ofOrder(tenant, id, after, query.limit + 1);
        const { served, hasMore } = fitEventPage(rows, query.limit);
        const last = served.at(-1)?.row.seq ?? after;
        return eventPageJson(
          served.map((event) => event.json),
          encodeTimelineCursor(id, last),
          hasMore,
        );
      },
      PAGE_BODY_LIMIT,
    );
  }
}

const notFound = orderNotFound;
