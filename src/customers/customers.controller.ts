import { Body, Controller, Get, Headers, HttpCode, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import {
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { AppCtx, Authenticated, Ctx, CustomerCtx } from '../auth/authenticated.decorator.js';
import { appScope, customerScope } from '../auth/grants.js';
import type { AppContext, CustomerContext, RequestContext } from '../auth/request-context.js';
import { customerIpKey } from '../common/http/address-key.js';
import { ApiErrors } from '../common/errors/api-error.decorator.js';
import { ID_PARAM, IdParam } from '../common/http/id-param.decorator.js';
import {
  ApiMetadataFilter,
  ListOrdersQuery,
  ORDER_LIST_DESCRIPTION,
  ORDER_LIST_VALIDATION,
} from '../orders/dto/order-queries.dto.js';
import { conditionalRead } from '../common/http/preconditions.decorator.js';
import { OrderDto, OrderPageDto } from '../orders/dto/order.dto.js';
import {
  FulfillmentListDto,
  RefundListDto,
} from '../orders/operations/dto/operations-output.dto.js';
import { OrderOperationsService } from '../orders/operations/order-operations.service.js';
import { OrderListService } from '../orders/order-list.service.js';
import { ApiConditionalRead } from '../orders/orders.controller.js';
import { OrdersService } from '../orders/orders.service.js';
import { appActor } from '../audit/actor.js';
import { IDEMPOTENCY_ERRORS, Idempotent } from '../idempotency/idempotent.decorator.js';
import { CustomerData } from './customer-data.service.js';
import { CustomerErasure } from './customer-erasure.service.js';
import { ErasureDto, ErasureRequestDto } from './dto/erasure.dto.js';
import { CustomerRefresh } from './customer-refresh.service.js';
import { DataExportDto, DataExportRequestDto } from './dto/data-export.dto.js';
import { CustomerTickets } from './customer-tickets.service.js';
import { CustomersService } from './customers.service.js';
import {
  ChangePasswordDto,
  CreateTicketDto,
  ResetPasswordDto,
  TicketDto,
  VerifyEmailDto,
} from './dto/ticket.dto.js';
import {
  CustomerDto,
  LoginDto,
  LoginResponseDto,
  RefreshTokenDto,
  RegisterCustomerDto,
} from './dto/customer.dto.js';
import { validated } from '../common/http/validated.js';

/** How a storefront backend passes its end user's address (docs/BEHAVIOUR.md#rate-limits). */
const CUSTOMER_IP_HEADER = ApiHeader({
  name: 'X-Customer-IP',
  required: false,
  description:
    "The end user's IP address (IPv4 or IPv6), as seen by the storefront backend. Limits are " +
    'then also counted per (tenant, address); malformed values are ignored. Never the address ' +
    "of the app's own server: that would put all of its customers under one limit.",
});

@ApiTags('customers')
@Controller('v1/customers')
export class CustomersController {
  constructor(
    private readonly customers: CustomersService,
    private readonly tickets: CustomerTickets,
    private readonly orders: OrdersService,
    private readonly orderList: OrderListService,
    private readonly operations: OrderOperationsService,
    private readonly refresh: CustomerRefresh,
    private readonly data: CustomerData,
    private readonly erasure: CustomerErasure,
  ) {}

  @Post('register')
  @Authenticated(appScope('customer:auth'))
  @ApiOperation({
    summary: 'Register a customer of the app’s tenant',
    description:
      'Creates the customer with `email_verified: false` and records a `customer.created` event; ' +
      'the email is unique per tenant in any case, and the password is hashed with argon2id and ' +
      'never returned. Needs an app token with `customer:auth`.',
  })
  @CUSTOMER_IP_HEADER
  @ApiCreatedResponse({ type: CustomerDto })
  @ApiErrors({
    validation_failed: 'name, email, phone or password out of bounds; common passwords refused',
    email_taken: 'the email is already registered in this tenant (any case)',
    rate_limited:
      'too many registrations from this X-Customer-IP, or password hashing is saturated',
  })
  register(
    @AppCtx() ctx: AppContext,
    @Body(validated) dto: RegisterCustomerDto,
    @Headers('x-customer-ip') customerIp: string | undefined,
  ): Promise<CustomerDto> {
    return this.customers.register(ctx, dto, customerIpKey(customerIp));
  }

  @Post('login')
  @HttpCode(200)
  @Authenticated(appScope('customer:auth'))
  @ApiOperation({
    summary: 'Open a customer session; the token is a Bearer token for the customer endpoints',
    description:
      'Returns a session token valid `expires_in` seconds (`CUSTOMER_SESSION_TTL`, 24 h by default) ' +
      'and the customer; the session carries `customer:read` and `order:read` only as far as the ' +
      'calling app token holds them. Unknown email and wrong password get the same 401, and failed ' +
      'logins are limited per email and per `X-Customer-IP`. Needs an app token with `customer:auth`.',
  })
  @CUSTOMER_IP_HEADER
  @ApiOkResponse({ type: LoginResponseDto })
  @ApiErrors({
    validation_failed: 'email or password missing or malformed',
    invalid_credentials: 'unknown email or wrong password (the same answer for both)',
    rate_limited:
      'too many failed logins for this email, or from this X-Customer-IP (`Retry-After`)',
  })
  login(
    @AppCtx() ctx: AppContext,
    @Body(validated) dto: LoginDto,
    @Headers('x-customer-ip') customerIp: string | undefined,
  ): Promise<LoginResponseDto> {
    return this.customers.login(ctx, dto, customerIpKey(customerIp));
  }

  @Post('token')
  @HttpCode(200)
  @Authenticated(appScope('customer:auth'))
  @ApiOperation({
    summary: 'Trade a refresh token for a new session token and a new refresh token',
    description:
      'The refresh token is used up (rotation): the answer carries the next one. Presenting a ' +
      'used-up refresh token again is taken as theft: the whole chain of that login ends (its ' +
      'sessions and its current refresh token, on every instance) and the answer is 400 ' +
      '`invalid_grant`, as for an unknown, expired or ended one. A chain lives at most ' +
      '`CUSTOMER_REFRESH_TTL` from login and `CUSTOMER_REFRESH_IDLE` without use. Only the app ' +
      'that logged the customer in can use it (another app gets `invalid_grant` and changes ' +
      'nothing). Needs an app token with `customer:auth`.',
  })
  @ApiOkResponse({ type: LoginResponseDto })
  @ApiErrors({
    validation_failed: 'refresh_token missing or not a string',
    invalid_grant: 'the refresh token is unknown, expired, already used, ended, or another app’s',
  })
  refreshSession(
    @AppCtx() ctx: AppContext,
    @Body(validated) dto: RefreshTokenDto,
  ): Promise<LoginResponseDto> {
    return this.refresh.refresh(ctx, dto.refresh_token);
  }

  @Post('data-exports')
  @HttpCode(200)
  @Authenticated(appScope('customer:privacy'))
  @ApiOperation({
    summary: 'Export what the store holds about a person (GDPR art. 15)',
    description:
      'The registered customer with that email in the tenant (any case), or null, every ' +
      'order of the tenant placed with that email or linked to that customer, with its items, ' +
      'fulfillments and refunds, and the marketplace imports with that email that have not ' +
      'become an order, with their payloads. Nothing of another tenant. Streamed (chunked): a ' +
      'person may have any number of orders, and the service holds a few of them at a time. ' +
      'Needs an app token with `customer:privacy`.',
  })
  @ApiOkResponse({ type: DataExportDto })
  @ApiErrors({ validation_failed: 'email missing or malformed' })
  async exportData(
    @AppCtx() ctx: AppContext,
    @Body(validated) dto: DataExportRequestDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Readable> {
    const answer = await this.data.export(ctx, dto.email);
    reply.type('application/json; charset=utf-8');
    return answer;
  }

  @Post('erasures')
  @Authenticated(appScope('customer:privacy'))
  @Idempotent<ErasureDto>({ status: 200 })
  @ApiOperation({
    summary: 'Erase a person (GDPR art. 17)',
    description:
      'In one transaction: the registered customer with that email (any case), if any, loses ' +
      'name, email, phone and password (every session and refresh chain ends, its tickets are ' +
      'gone, the email is free again); every order with that email or of that customer keeps ' +
      'its money, items, statuses and dates but loses `customer.name`, `email`, `phone`, ' +
      '`shipping_address.address`, `district` and the personal part of `postal_code`; the event ' +
      'log, stored idempotent responses and import payloads are redacted alike. Writes one ' +
      '`customer.erased` event; the audit log keeps only the email hash. Send an ' +
      'Idempotency-Key. Needs an app token with `customer:privacy`.',
  })
  @ApiOkResponse({ type: ErasureDto })
  @ApiErrors({
    ...IDEMPOTENCY_ERRORS,
    validation_failed: 'email missing or malformed, or a malformed Idempotency-Key',
  })
  erase(@AppCtx() ctx: AppContext, @Body(validated) dto: ErasureRequestDto): Promise<ErasureDto> {
    return this.erasure.erase(appActor(ctx.clientId), ctx.tenantId, dto.email);
  }

  @Post('tickets')
  @Authenticated(appScope('customer:manage'))
  @ApiOperation({
    summary: 'Make an email-verification or password-reset token for the app to deliver',
    description:
      'The app sends the token to the customer in its own email (a link to its storefront), as ' +
      "with Auth0's tickets. Single use, `CUSTOMER_TICKET_TTL` (24 h); a new ticket of a type " +
      'supersedes the older ones for the customer. The service stores only a hash. Needs an app ' +
      'token with `customer:manage`.',
  })
  @ApiCreatedResponse({ type: TicketDto })
  @ApiErrors({
    validation_failed: 'type or email malformed',
    not_found: 'no customer with this email in the tenant',
  })
  createTicket(
    @AppCtx() ctx: AppContext,
    @Body(validated) dto: CreateTicketDto,
  ): Promise<TicketDto> {
    return this.tickets.issue(ctx, dto.type, dto.email);
  }

  @Post('verify-email')
  @HttpCode(200)
  @Authenticated(appScope('customer:auth'))
  @ApiOperation({
    summary: 'Prove the email with an email_verification token',
    description:
      'Marks the email verified and, in the same transaction, links the tenant’s orders placed ' +
      'with that email and no customer (guest orders and imports, earlier ones too). The token ' +
      'is used up. Needs an app token with `customer:auth`.',
  })
  @ApiOkResponse({ type: CustomerDto })
  @ApiErrors({
    validation_failed: 'token missing or not a string',
    invalid_ticket: 'the token is unknown, used, expired, superseded or of another tenant',
  })
  verifyEmail(
    @AppCtx() ctx: AppContext,
    @Body(validated) dto: VerifyEmailDto,
  ): Promise<CustomerDto> {
    return this.tickets.verifyEmail(ctx, dto.token);
  }

  @Post('reset-password')
  @HttpCode(200)
  @Authenticated(appScope('customer:auth'))
  @ApiOperation({
    summary: 'Set a new password with a password_reset token',
    description:
      'The registration policy applies. Every session of the customer ends at once, on every ' +
      'instance, and the failed-login count of the email is cleared. The token is used up. Needs ' +
      'an app token with `customer:auth`.',
  })
  @ApiOkResponse({ type: CustomerDto })
  @ApiErrors({
    validation_failed: 'password breaks the policy, or token missing',
    invalid_ticket: 'the token is unknown, used, expired, superseded or of another tenant',
    rate_limited: 'password hashing is saturated; retry',
  })
  resetPassword(
    @AppCtx() ctx: AppContext,
    @Body(validated) dto: ResetPasswordDto,
  ): Promise<CustomerDto> {
    return this.tickets.resetPassword(ctx, dto.token, dto.password);
  }

  @Post('me/password')
  @HttpCode(204)
  @Authenticated(customerScope('customer:read'))
  @ApiOperation({
    summary: 'Change the password; every other session of the customer ends',
    description:
      'Sets `new_password` (the registration policy applies) once `current_password` is checked; ' +
      'this session stays valid. A wrong `current_password` is 400 `validation_failed` and counts ' +
      'as a failed login for the email. Needs a customer session with `customer:read`.',
  })
  @ApiNoContentResponse()
  @ApiErrors({
    validation_failed: '`current_password` is wrong, or `new_password` breaks the policy',
    rate_limited: 'too many failed logins for this email (`Retry-After`)',
  })
  changePassword(
    @CustomerCtx() ctx: CustomerContext,
    @Body(validated) dto: ChangePasswordDto,
  ): Promise<void> {
    return this.customers.changePassword(ctx, dto);
  }

  @Post('logout-all')
  @HttpCode(204)
  @Authenticated(customerScope('customer:read'))
  @ApiOperation({
    summary: 'End every session of the customer, this one included',
    description:
      'Every session token of the customer answers 401 `unauthenticated` from now on, on every ' +
      'instance; the password is unchanged. Needs a customer session with `customer:read`.',
  })
  @ApiNoContentResponse()
  logoutAll(@CustomerCtx() ctx: CustomerContext): Promise<void> {
    return this.customers.logoutAll(ctx);
  }

  @Get('me')
  @Authenticated(customerScope('customer:read'))
  @ApiOperation({
    summary: 'The logged-in customer',
    description:
      'Returns the customer of the session token, with `email_verified`. Needs a customer ' +
      'session with `customer:read`.',
  })
  @ApiOkResponse({ type: CustomerDto })
  me(@CustomerCtx() ctx: CustomerContext): Promise<CustomerDto> {
    return this.customers.me(ctx);
  }

  @Post('logout')
  @HttpCode(204)
  @Authenticated(customerScope('customer:read'))
  @ApiOperation({
    summary: 'End this session: its token answers 401 from now on, on every instance',
    description:
      "Revokes only the calling session token; the customer's other sessions stay valid " +
      '(`POST /v1/customers/logout-all` ends them all). Needs a customer session with `customer:read`.',
  })
  @ApiNoContentResponse()
  logout(@CustomerCtx() ctx: CustomerContext): Promise<void> {
    return this.customers.logout(ctx);
  }

  @Get('me/orders')
  @Authenticated(customerScope('order:read'))
  @ApiOperation({
    summary: "The customer's own orders (same query and shape as GET /v1/orders)",
    description:
      'Needs a customer session with `order:read`. Lists only the orders linked to the ' +
      'session’s customer (by `customer.id`, or by email once the email is verified).\n\n' +
      ORDER_LIST_DESCRIPTION,
  })
  @ApiMetadataFilter()
  @ApiOkResponse({ type: OrderPageDto })
  @ApiErrors({ validation_failed: ORDER_LIST_VALIDATION })
  myOrders(
    @Ctx() ctx: RequestContext,
    @Query(validated) query: ListOrdersQuery,
  ): Promise<OrderPageDto> {
    return this.orderList.list(ctx, query);
  }

  @Get('me/orders/:id')
  @ApiParam(ID_PARAM)
  @Authenticated(customerScope('order:read'))
  @ApiOperation({
    summary: "One of the customer's own orders",
    description:
      'The order in the shape of `GET /v1/orders/{id}`, if it is linked to the session’s ' +
      "customer; another customer's order, or an unknown id, is 404 `not_found`. Needs a " +
      'customer session with `order:read`.',
  })
  @ApiConditionalRead()
  @ApiErrors({
    validation_failed:
      'id is not a positive integer, or If-None-Match is not a list of entity tags',
    not_found: "unknown, or another customer's order",
  })
  async myOrder(
    @Ctx() ctx: RequestContext,
    @IdParam() id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OrderDto | undefined> {
    return conditionalRead(reply, await this.orders.get(ctx, id), ifNoneMatch);
  }

  @Get('me/orders/:id/fulfillments')
  @ApiParam(ID_PARAM)
  @Authenticated(customerScope('order:read'))
  @ApiOperation({
    summary: "The fulfillments of one of the customer's own orders, oldest first",
    description: 'Needs a customer session with `order:read`; any other order is 404.',
  })
  @ApiOkResponse({ type: FulfillmentListDto })
  @ApiErrors({ not_found: "unknown, or another customer's order" })
  async myFulfillments(
    @Ctx() ctx: RequestContext,
    @IdParam() id: number,
  ): Promise<FulfillmentListDto> {
    return { data: await this.operations.fulfillmentsOf(ctx, id) };
  }

  @Get('me/orders/:id/refunds')
  @ApiParam(ID_PARAM)
  @Authenticated(customerScope('order:read'))
  @ApiOperation({
    summary: "The refunds of one of the customer's own orders, oldest first",
    description: 'Needs a customer session with `order:read`; any other order is 404.',
  })
  @ApiOkResponse({ type: RefundListDto })
  @ApiErrors({ not_found: "unknown, or another customer's order" })
  async myRefunds(@Ctx() ctx: RequestContext, @IdParam() id: number): Promise<RefundListDto> {
    return { data: await this.operations.refundsOf(ctx, id) };
  }
}
