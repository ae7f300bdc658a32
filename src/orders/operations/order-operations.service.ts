import { Injectable } from '@nestjs/common';
import type { AppContext, RequestContext } from '../../auth/request-context.js';
import type { VersionPrecondition } from '../../common/http/entity-tags.js';
import { AppError } from '../../common/errors/app-error.js';
import { Transactions } from '../../database/transactions.js';
import type { OrderDto } from '../dto/order.dto.js';
import { actorOf } from '../order-actor.js';
import { orderScopeOf } from '../order-scope.js';
import { type ChangedOrder, orderNotFound, OrderWriter } from '../order-writer.js';
import { OrdersRepository } from '../orders.repository.js';
import { cancelPlan, fulfillmentPlan, patchPlan, refundPlan } from './change-plans.js';
import type {
  CancelOrderDto,
  CreateFulfillmentDto,
  CreateRefundDto,
  UpdateFulfillmentDto,
} from './dto/operations-input.dto.js';
import type { FulfillmentDto, RefundDto } from './dto/operations-output.dto.js';
import type { PatchOrderDto } from './dto/patch-order.dto.js';
import { FulfillmentsRepository, type Tracking } from './fulfillments.repository.js';
import { toFulfillmentDto, toRefundDto } from './operations.mapper.js';
import { RefundsRepository } from './refunds.repository.js';

/**
 * What happens to an order after its creation (docs/BEHAVIOUR.md#order-operations): `PATCH`,
 * cancel, fulfillments and refunds, each one change through OrderWriter in one unit of work
 * (joining the Idempotency-Key's, where there is one), and their reads.
 */
@Injectable()
export class OrderOperationsService {
  constructor(
    private readonly writer: OrderWriter,
    private readonly orders: OrdersRepository,
    private readonly fulfillments: FulfillmentsRepository,
    private readonly refunds: RefundsRepository,
    private readonly transactions: Transactions,
  ) {}

  patch(
    ctx: AppContext,
    id: number,
    patch: PatchOrderDto,
    ifMatch?: VersionPrecondition,
  ): Promise<ChangedOrder> {
    return this.change(ctx, id, ifMatch, (order) => patchPlan(order, patch));
  }

  async cancel(
    ctx: AppContext,
    id: number,
    dto: CancelOrderDto,
    ifMatch?: VersionPrecondition,
  ): Promise<OrderDto> {
    const { order } = await this.change(ctx, id, ifMatch, (current) =>
      cancelPlan(current, dto.reason, dto.note ?? null, dto.restock ?? true),
    );
    return order;
  }

  async fulfill(
    ctx: AppContext,
    id: number,
    dto: CreateFulfillmentDto,
    ifMatch?: VersionPrecondition,
  ): Promise<FulfillmentDto> {
    const { record } = await this.change<FulfillmentDto>(ctx, id, ifMatch, (order) =>
      fulfillmentPlan(
        order,
        { items: dto.items, tracking: trackingOf(dto.tracking) },
        this.fulfillments,
      ),
    );
    return record;
  }

  async refund(
    ctx: AppContext,
    id: number,
    dto: CreateRefundDto,
    ifMatch?: VersionPrecondition,
  ): Promise<RefundDto> {
    if (dto.amount === undefined && dto.items === undefined) {
      throw new AppError('validation_failed', 'A refund needs an amount, items or both', {
        details: [{ field: 'amount', message: 'amount or items is required' }],
      });
    }
    const { record } = await this.change<RefundDto>(ctx, id, ifMatch, (order) =>
      refundPlan(
        order,
        {
          amount: dto.amount,
          items: dto.items,
          reason: dto.reason ?? null,
          restock: dto.restock ?? false,
        },
        this.refunds,
      ),
    );
    return record;
  }

  /**
   * New tracking for a fulfillment: a carrier's number arrives later. Under the order's lock
   * (its `If-Match` holds as for any write), but not a change of the order: its `version`
   * stays, a `fulfillment.updated` event records it.
   */
  updateFulfillment(
    ctx: AppContext,
    id: number,
    fulfillmentId: number,
    dto: UpdateFulfillmentDto,
    ifMatch?: VersionPrecondition,
  ): Promise<FulfillmentDto> {
    return this.transactions.run(async (db) => {
      const tenant = db.tenant(ctx.tenantId);
      const { order } = await this.writer.change(
        { db: tenant, orderId: id, actor: actorOf(ctx), ifMatch },
        () => undefined,
      );
      const row = await this.fulfillments.setTracking(
        tenant,
        id,
        fulfillmentId,
        trackingOf(dto.tracking),
      );
      if (!row)
        throw new AppError('not_found', `fulfillment ${fulfillmentId} of order ${id} not found`);
      const fulfillment = toFulfillmentDto(row);
      await this.writer.appendEvents(tenant, [
        { type: 'fulfillment.updated', orderId: id, data: { object: fulfillment, order } },
      ]);
      return fulfillment;
    });
  }

  /** One fulfillment of an order the caller may read. */
  async fulfillment(
    ctx: RequestContext,
    id: number,
    fulfillmentId: number,
  ): Promise<FulfillmentDto> {
    const tenant = await this.readable(ctx, id);
    const row = await this.fulfillments.find(tenant, id, fulfillmentId);
    if (!row)
      throw new AppError('not_found', `fulfillment ${fulfillmentId} of order ${id} not found`);
    return toFulfillmentDto(row);
  }

  /** The order's fulfillments, oldest first. */
  async fulfillmentsOf(ctx: RequestContext, id: number): Promise<FulfillmentDto[]> {
    const tenant = await this.readable(ctx, id);
    return (await this.fulfillments.ofOrder(tenant, id)).map(toFulfillmentDto);
  }

  /** One refund of an order the caller may read. */
  async refundOf(ctx: RequestContext, id: number, refundId: number): Promise<RefundDto> {
    const tenant = await this.readable(ctx, id);
    const row = await this.refunds.find(tenant, id, refundId);
    if (!row) throw new AppError('not_found', `refund ${refundId} of order ${id} not found`);
    return toRefundDto(row);
  }

  /** The order's refunds, oldest first. */
  async refundsOf(ctx: RequestContext, id: number): Promise<RefundDto[]> {
    const tenant = await this.readable(ctx, id);
    return (await this.refunds.ofOrder(tenant, id)).map(toRefundDto);
  }

  private change<R = undefined>(
    ctx: AppContext,
    id: number,
    ifMatch: VersionPrecondition | undefined,
    plan: Parameters<OrderWriter['change']>[1],
  ): Promise<ChangedOrder<R>> {
    return this.transactions.run((db) =>
      this.writer.change<R>(
        { db: db.tenant(ctx.tenantId), orderId: id, actor: actorOf(ctx), ifMatch },
        plan,
      ),
    );
  }

  /** The tenant path, once the order is one the caller may read (a customer: its own); else 404. */
  private async readable(ctx: RequestContext, id: number) {
    const tenant = this.transactions.db.tenant(ctx.tenantId);
    if (!(await this.orders.exists(tenant, orderScopeOf(ctx), id))) throw orderNotFound(id);
    return tenant;
  }
}

function trackingOf(
  tracking: { company: string; number: string; url?: string | null } | null | undefined,
): Tracking | null {
  if (!tracking) return null;
  return { company: tracking.company, number: tracking.number, url: tracking.url ?? null };
}
