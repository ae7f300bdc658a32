import {
  applyDecorators,
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiHeader,
  ApiNotModifiedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { AppCtx, Authenticated, Ctx } from '../auth/authenticated.decorator.js';
import { appScope, customerScope } from '../auth/grants.js';
import type { AppContext, RequestContext } from '../auth/request-context.js';
import type { FastifyReply } from 'fastify';
import { etagOf, type VersionPrecondition } from '../common/http/entity-tags.js';
import { ID_PARAM, IdParam } from '../common/http/id-param.decorator.js';
import {
  ApiIfMatch,
  conditionalRead,
  IfMatch,
  withETag,
} from '../common/http/preconditions.decorator.js';
import { ApiErrors } from '../common/errors/api-error.decorator.js';
import { IDEMPOTENCY_ERRORS, Idempotent } from '../idempotency/idempotent.decorator.js';
import { CreateOrderDto } from './dto/create-order.dto.js';
import {
  ChangeStatusDto,
  ApiMetadataFilter,
  ListOrdersQuery,
  ORDER_LIST_DESCRIPTION,
  ORDER_LIST_VALIDATION,
} from './dto/order-queries.dto.js';
import { OrderDto, OrderPageDto } from './dto/order.dto.js';
import { EventPageDto, EventPageQuery } from '../events/dto/event.dto.js';
import { jsonText } from '../common/http/json-text.js';
import { OrderListService } from './order-list.service.js';
import { OrdersService } from './orders.service.js';
import { validated } from '../common/http/validated.js';

/** The `ETag` response header of a single order, for OpenAPI. */
export const ETAG_HEADER = {
  description: '"<version>" of the order: `If-Match` on a write, `If-None-Match` on a read',
  schema: { type: 'string', example: '"3"' },
};

/** OpenAPI of a read of one order: `If-None-Match`, the `ETag`, 304. */
export function ApiConditionalRead(): MethodDecorator {
  return applyDecorators(
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description:
        'The `ETag` of the copy the client holds: 304 without a body while it is current',
    }),
    ApiOkResponse({ type: OrderDto, headers: { ETag: ETAG_HEADER } }),
    ApiNotModifiedResponse({
      description: 'The order is still at the version named in `If-None-Match`',
    }),
  );
}

@ApiTags('orders')
@Controller('v1/orders')
export class OrdersController {
  constructor(
    private readonly orders: OrdersService,
    private readonly orderList: OrderListService,
  ) {}

  @Post()
  @Authenticated(appScope('orders:write'))
  @Idempotent<OrderDto>({
    status: 201,
    headers: (order) => ({ location: `/v1/orders/${order.id}`, etag: etagOf(order.version) }),
  })
  @ApiOperation({
    summary: 'Create an order; prices come from the catalog, status starts pending',
    description:
      'Unit prices come from the tenant’s active catalog at this moment, totals are exact, ' +
      '`currency` is the tenant’s; `customer.id` links that registered customer, else a ' +
      'customer whose verified email matches is linked, and an `order.created` event is ' +
      'recorded. With an `Idempotency-Key`, a repeat with the same body replays the first 201 ' +
      '(`Idempotent-Replayed: true`) and creates nothing. Needs an app token with `orders:write`.',
  })
  @ApiCreatedResponse({
    type: OrderDto,
    headers: {
      Location: { description: '/v1/orders/{id}', schema: { type: 'string' } },
      ETag: ETAG_HEADER,
    },
  })
  @ApiErrors({
    ...IDEMPOTENCY_ERRORS,
    validation_failed:
      'the body breaks a bound (details name each field) or the Idempotency-Key is malformed',
    unknown_product: 'a line names a product not in the active catalog (details list the lines)',
    unknown_customer: '`customer.id` is not a customer of this tenant',
  })
  create(@AppCtx() ctx: AppContext, @Body(validated) dto: CreateOrderDto): Promise<OrderDto> {
    return this.orders.create(ctx, dto);
  }

  @Get()
  @Authenticated(appScope('orders:read'), customerScope('order:read'))
  @ApiOperation({
    summary:
      "List orders, filtered and sorted, by page or by cursor (a customer session sees only the customer's own)",
    description:
      'An app token with `orders:read` sees every order of the tenant; a customer session with ' +
      '`order:read` sees only its customer’s orders, as `GET /v1/customers/me/orders` does.\n\n' +
      ORDER_LIST_DESCRIPTION,
  })
  @ApiMetadataFilter()
  @ApiOkResponse({ type: OrderPageDto })
  @ApiErrors({ validation_failed: ORDER_LIST_VALIDATION })
  list(
    @Ctx() ctx: RequestContext,
    @Query(validated) query: ListOrdersQuery,
  ): Promise<OrderPageDto> {
    return this.orderList.list(ctx, query);
  }

  @Get(':id')
  @ApiParam(ID_PARAM)
  @Authenticated(appScope('orders:read'), customerScope('order:read'))
  @ApiOperation({
    summary: 'Read one order',
    description:
      'An app token with `orders:read` reads any order of the tenant; a customer session with ' +
      '`order:read` reads only its customer’s orders. Any other order answers 404 `not_found`, ' +
      'like an unknown id.',
  })
  @ApiConditionalRead()
  @ApiErrors({
    validation_failed:
      'id is not a positive integer, or If-None-Match is not a list of entity tags',
    not_found: "unknown, another tenant's or another customer's order",
  })
  async get(
    @Ctx() ctx: RequestContext,
    @IdParam() id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OrderDto | undefined> {
    return conditionalRead(reply, await this.orders.get(ctx, id), ifNoneMatch);
  }

  @Get(':id/events')
  @ApiParam(ID_PARAM)
  @Authenticated(appScope('orders:read'))
  @ApiOperation({
    summary: "The order's timeline: its events, oldest first, in pages",
    description:
      'Every event of the order (creation, status changes, updates, fulfillments, refunds), in ' +
      'the shapes of `GET /v1/events` and in the order they were written. Pages as the feed’s: ' +
      'at most `limit` events, ending before the body passes 4 MiB (with at least one event); ' +
      'follow `next_cursor` (as `after`) while `has_more`, and later from the last ' +
      '`next_cursor` for what happened since. Events past the retention ' +
      '(`EVENT_RETENTION_DAYS`, 30 by default) are gone. Needs an app token with `orders:read`.',
  })
  @ApiOkResponse({ type: EventPageDto })
  @ApiErrors({
    validation_failed:
      "id is not a positive integer, `after` is not a cursor of this order's timeline, `limit` out of 1–500",
    not_found: "unknown or another tenant's order",
  })
  async timeline(
    @AppCtx() ctx: AppContext,
    @IdParam() id: number,
    @Query(validated) query: EventPageQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return jsonText(reply, await this.orders.timeline(ctx, id, query));
  }

  @Post(':id/status')
  @ApiParam(ID_PARAM)
  @HttpCode(200)
  @Authenticated(appScope('orders:write'))
  @ApiOperation({
    summary: 'Change the status along the order process',
    description:
      'Allowed: pending → paid | cancelled, paid → preparing | refunded, preparing → shipped | ' +
      'refunded, shipped → refunded; anything else, a repeat of the same change included, is 409 ' +
      '`invalid_transition`. Concurrent changes are serialised (none is lost); each moves ' +
      '`updated_at` and records an `order.status_changed` event. Needs an app token with `orders:write`.',
  })
  @ApiIfMatch('the order')
  @ApiOkResponse({ type: OrderDto, headers: { ETag: ETAG_HEADER } })
  @ApiErrors({
    validation_failed: 'id, status or If-Match malformed',
    not_found: "unknown or another tenant's order",
    invalid_transition: 'not allowed from the current status (a repeated change also answers 409)',
    precondition_failed: 'If-Match names another version of the order',
  })
  async changeStatus(
    @AppCtx() ctx: AppContext,
    @IdParam() id: number,
    @Body(validated) dto: ChangeStatusDto,
    @IfMatch() ifMatch: VersionPrecondition | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OrderDto> {
    return withETag(reply, await this.orders.changeStatus(ctx, id, dto.status, ifMatch));
  }
}
