import { Body, Controller, Get, Patch, Post, Res } from '@nestjs/common';
import {
  ApiConsumes,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AppCtx, Authenticated, Ctx } from '../../auth/authenticated.decorator.js';
import { appScope, customerScope } from '../../auth/grants.js';
import type { AppContext, RequestContext } from '../../auth/request-context.js';
import { ApiErrors } from '../../common/errors/api-error.decorator.js';
import { etagOf, type VersionPrecondition } from '../../common/http/entity-tags.js';
import { ID_PARAM, IdParam, idParam } from '../../common/http/id-param.decorator.js';
import { ApiIfMatch, IfMatch, withETag } from '../../common/http/preconditions.decorator.js';
import { validated } from '../../common/http/validated.js';
import { IDEMPOTENCY_ERRORS, Idempotent } from '../../idempotency/idempotent.decorator.js';
import { OrderDto } from '../dto/order.dto.js';
import { ETAG_HEADER } from '../orders.controller.js';
import {
  CancelOrderDto,
  CreateFulfillmentDto,
  CreateRefundDto,
  UpdateFulfillmentDto,
} from './dto/operations-input.dto.js';
import {
  FulfillmentDto,
  FulfillmentListDto,
  RefundDto,
  RefundListDto,
} from './dto/operations-output.dto.js';
import { PatchOrderDto } from './dto/patch-order.dto.js';
import { OrderOperationsService } from './order-operations.service.js';

const WRITE_ERRORS = {
  not_found: "unknown or another tenant's order",
  precondition_failed: 'If-Match names another version of the order (nothing is written)',
} as const;

/** Where a fulfillment and a refund are read (their `Location`). */
export const fulfillmentPath = (f: FulfillmentDto) =>
  `/v1/orders/${f.order_id}/fulfillments/${f.id}`;
export const refundPath = (r: RefundDto) => `/v1/orders/${r.order_id}/refunds/${r.id}`;

/**
 * An order's life after creation (docs/BEHAVIOUR.md#order-operations): `PATCH`, cancel,
 * fulfillments and refunds. Every write takes `If-Match`; the POSTs take an Idempotency-Key.
 */
@ApiTags('orders')
@Controller('v1/orders')
export class OrderOperationsController {
  constructor(private readonly operations: OrderOperationsService) {}

  @Patch(':id')
  @ApiParam(ID_PARAM)
  @Authenticated(appScope('orders:write'))
  @ApiConsumes('application/json', 'application/merge-patch+json')
  @ApiIfMatch('the order')
  @ApiOperation({
    summary: 'Change the note, tags or metadata of an order',
    description:
      '`note` replaces the note (null removes it), `tags` replaces the set, `metadata` is merged ' +
      'as RFC 7396 says (a key with null is removed), with `application/json` or ' +
      '`application/merge-patch+json` alike. A change bumps `version` and `updated_at` and ' +
      'records an `order.updated` event naming the changed fields; a `PATCH` that changes nothing ' +
      'answers 200 and writes nothing. Needs an app token with `orders:write`.',
  })
  @ApiOkResponse({ type: OrderDto, headers: { ETag: ETAG_HEADER } })
  @ApiErrors({
    validation_failed:
      'an unknown field, a bound broken (also after the merge: at most 50 metadata keys), or a malformed If-Match',
    ...WRITE_ERRORS,
  })
  async patch(
    @AppCtx() ctx: AppContext,
    @IdParam() id: number,
    @Body(validated) dto: PatchOrderDto,
    @IfMatch() ifMatch: VersionPrecondition | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OrderDto> {
    const { order } = await this.operations.patch(ctx, id, dto, ifMatch);
    return withETag(reply, order);
  }

  @Post(':id/cancel')
  @ApiParam(ID_PARAM)
  @Authenticated(appScope('orders:write'))
  @Idempotent<OrderDto>({ status: 200, headers: (order) => ({ etag: etagOf(order.version) }) })
  @ApiIfMatch('the order')
  @ApiOperation({
    summary: 'Cancel a pending order',
    description:
      'Only a `pending` order can be cancelled (a paid one is refunded instead); the order ' +
      'answers with status `cancelled` and its `cancellation`, and an `order.status_changed` ' +
      'event is recorded. Needs an app token with `orders:write`.',
  })
  @ApiOkResponse({ type: OrderDto, headers: { ETag: ETAG_HEADER } })
  @ApiErrors({
    ...IDEMPOTENCY_ERRORS,
    ...WRITE_ERRORS,
    invalid_transition: 'the order is not pending',
  })
  cancel(
    @AppCtx() ctx: AppContext,
    @IdParam() id: number,
    @Body(validated) dto: CancelOrderDto,
    @IfMatch() ifMatch: VersionPrecondition | undefined,
  ): Promise<OrderDto> {
    return this.operations.cancel(ctx, id, dto, ifMatch);
  }

  @Post(':id/fulfillments')
  @ApiParam(ID_PARAM)
  @Authenticated(appScope('orders:write'))
  @Idempotent<FulfillmentDto>({ status: 201, headers: (f) => ({ location: fulfillmentPath(f) }) })
  @ApiIfMatch('the order')
  @ApiOperation({
    summary: 'Record a shipment of some or all lines',
    description:
      'Without `items`, every quantity left unfulfilled ships (a line’s `quantity` less its ' +
      '`fulfilled_quantity` and `refunded_quantity`: units refunded by line are not due to ' +
      'ship). Allowed while the order is ' +
      '`paid` or `preparing`. The order’s `fulfillment_status` follows; a first partial ' +
      'fulfillment moves `paid` to `preparing`, the one that completes the order moves it to ' +
      '`shipped` (through `preparing`). Events: `fulfillment.created`, and an ' +
      '`order.status_changed` per status step. Needs an app token with `orders:write`.',
  })
  @ApiCreatedResponse({
    type: FulfillmentDto,
    headers: {
      Location: {
        description: '/v1/orders/{id}/fulfillments/{fulfillment_id}',
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrors({
    ...IDEMPOTENCY_ERRORS,
    ...WRITE_ERRORS,
    validation_failed: 'malformed body, or an item_id that is not a line of this order',
    invalid_transition: 'the order is not paid or preparing',
    exceeds_unfulfilled: 'a line quantity beyond what is left unfulfilled of that line',
  })
  fulfill(
    @AppCtx() ctx: AppContext,
    @IdParam() id: number,
    @Body(validated) dto: CreateFulfillmentDto,
    @IfMatch() ifMatch: VersionPrecondition | undefined,
  ): Promise<FulfillmentDto> {
    return this.operations.fulfill(ctx, id, dto, ifMatch);
  }

  @Get(':id/fulfillments')
  @ApiParam(ID_PARAM)
  @Authenticated(appScope('orders:read'), customerScope('order:read'))
  @ApiOperation({
    summary: 'The fulfillments of an order, oldest first',
    description:
      'An app token with `orders:read`, or a customer session with `order:read` for its own orders.',
  })
  @ApiOkResponse({ type: FulfillmentListDto })
  @ApiErrors({ not_found: "unknown, another tenant's or another customer's order" })
  async fulfillments(
    @Ctx() ctx: RequestContext,
    @IdParam() id: number,
  ): Promise<FulfillmentListDto> {
    return { data: await this.operations.fulfillmentsOf(ctx, id) };
  }

  @Get(':id/fulfillments/:fulfillment_id')
  @ApiParam(ID_PARAM)
  @ApiParam(idParam('fulfillment_id'))
  @Authenticated(appScope('orders:read'), customerScope('order:read'))
  @ApiOperation({
    summary: 'One fulfillment of an order',
    description:
      'The `Location` of a new fulfillment. An app token with `orders:read`, or a customer session with `order:read` for its own orders.',
  })
  @ApiOkResponse({ type: FulfillmentDto })
  @ApiErrors({ not_found: 'unknown order or fulfillment, or one the caller may not read' })
  fulfillment(
    @Ctx() ctx: RequestContext,
    @IdParam() id: number,
    @IdParam('fulfillment_id') fulfillmentId: number,
  ): Promise<FulfillmentDto> {
    return this.operations.fulfillment(ctx, id, fulfillmentId);
  }

  @Patch(':id/fulfillments/:fulfillment_id')
  @ApiParam(ID_PARAM)
  @ApiParam(idParam('fulfillment_id'))
  @Authenticated(appScope('orders:write'))
  @ApiIfMatch('the order')
  @ApiOperation({
    summary: 'Replace the tracking of a fulfillment',
    description:
      'A carrier’s number often arrives later. The whole `tracking` object is replaced (null ' +
      'removes it) and a `fulfillment.updated` event recorded; the order’s `version` is ' +
      'unchanged. Needs an app token with `orders:write`.',
  })
  @ApiOkResponse({ type: FulfillmentDto })
  @ApiErrors({
    validation_failed: 'malformed body or If-Match',
    not_found: "unknown or another tenant's order, or no such fulfillment of it",
    precondition_failed: WRITE_ERRORS.precondition_failed,
  })
  updateFulfillment(
    @AppCtx() ctx: AppContext,
    @IdParam() id: number,
    @IdParam('fulfillment_id') fulfillmentId: number,
    @Body(validated) dto: UpdateFulfillmentDto,
    @IfMatch() ifMatch: VersionPrecondition | undefined,
  ): Promise<FulfillmentDto> {
    return this.operations.updateFulfillment(ctx, id, fulfillmentId, dto, ifMatch);
  }

  @Post(':id/refunds')
  @ApiParam(ID_PARAM)
  @Authenticated(appScope('orders:write'))
  @Idempotent<RefundDto>({ status: 201, headers: (r) => ({ location: refundPath(r) }) })
  @ApiIfMatch('the order')
  @ApiOperation({
    summary: 'Give money back, in whole or in part',
    description:
      'At least one of `amount` and `items`; `amount` defaults to the value of `items`. Allowed ' +
      'while the order is `paid`, `preparing` or `shipped`. The order’s `refunded_total` grows; ' +
      'when it reaches `total` the status becomes `refunded`. Concurrent refunds never together ' +
      'exceed the total. Events: `refund.created` (and `order.status_changed` on the move to ' +
      '`refunded`). Needs an app token with `orders:write`.',
  })
  @ApiCreatedResponse({
    type: RefundDto,
    headers: {
      Location: { description: '/v1/orders/{id}/refunds/{refund_id}', schema: { type: 'string' } },
    },
  })
  @ApiErrors({
    ...IDEMPOTENCY_ERRORS,
    ...WRITE_ERRORS,
    validation_failed:
      'malformed body, neither amount nor items, or an item_id that is not a line of this order',
    invalid_transition: 'the order is not paid, preparing or shipped',
    exceeds_refundable:
      'an amount beyond total − refunded_total, or a line quantity beyond what is left of it',
  })
  refund(
    @AppCtx() ctx: AppContext,
    @IdParam() id: number,
    @Body(validated) dto: CreateRefundDto,
    @IfMatch() ifMatch: VersionPrecondition | undefined,
  ): Promise<RefundDto> {
    return this.operations.refund(ctx, id, dto, ifMatch);
  }

  @Get(':id/refunds')
  @ApiParam(ID_PARAM)
  @Authenticated(appScope('orders:read'), customerScope('order:read'))
  @ApiOperation({
    summary: 'The refunds of an order, oldest first',
    description:
      'An app token with `orders:read`, or a customer session with `order:read` for its own orders.',
  })
  @ApiOkResponse({ type: RefundListDto })
  @ApiErrors({ not_found: "unknown, another tenant's or another customer's order" })
  async refunds(@Ctx() ctx: RequestContext, @IdParam() id: number): Promise<RefundListDto> {
    return { data: await this.operations.refundsOf(ctx, id) };
  }

  @Get(':id/refunds/:refund_id')
  @ApiParam(ID_PARAM)
  @ApiParam(idParam('refund_id'))
  @Authenticated(appScope('orders:read'), customerScope('order:read'))
  @ApiOperation({
    summary: 'One refund of an order',
    description:
      'The `Location` of a new refund. An app token with `orders:read`, or a customer session with `order:read` for its own orders.',
  })
  @ApiOkResponse({ type: RefundDto })
  @ApiErrors({ not_found: 'unknown order or refund, or one the caller may not read' })
  refundOne(
    @Ctx() ctx: RequestContext,
    @IdParam() id: number,
    @IdParam('refund_id') refundId: number,
  ): Promise<RefundDto> {
    return this.operations.refundOf(ctx, id, refundId);
  }
}
