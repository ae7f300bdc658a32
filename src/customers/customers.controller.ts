import { Body, Controller, Get, HttpCode, Post, Query, Req } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Authenticated, Ctx } from '../auth/authenticated.decorator.js';
import { appScope, customerScope } from '../auth/grants.js';
import type { RequestContext } from '../auth/request-context.js';
import { ApiErrors } from '../common/errors/api-error.decorator.js';
import { ID_PARAM, IdParam } from '../common/http/id-param.decorator.js';
import type { Page } from '../common/pagination.js';
import { ListOrdersQuery } from '../orders/dto/order-queries.dto.js';
import { OrderDto, OrderPageDto } from '../orders/dto/order.dto.js';
import { OrdersService } from '../orders/orders.service.js';
import { CustomersService } from './customers.service.js';
import {
  CustomerDto,
  LoginDto,
  LoginResponseDto,
  RegisterCustomerDto,
} from './dto/customer.dto.js';

@ApiTags('customers')
@Controller('v1/customers')
export class CustomersController {
  constructor(
    private readonly customers: CustomersService,
    private readonly orders: OrdersService,
  ) {}

  @Post('register')
  @Authenticated(appScope('customer:auth'))
  @ApiOperation({ summary: 'Register a customer of the app’s tenant' })
  @ApiCreatedResponse({ type: CustomerDto })
  @ApiErrors({
    validation_failed: 'name, email, phone or password out of bounds; common passwords refused',
    email_taken: 'the email is already registered in this tenant (any case)',
  })
  register(@Ctx() ctx: RequestContext, @Body() dto: RegisterCustomerDto): Promise<CustomerDto> {
    return this.customers.register(ctx, dto);
  }

  @Post('login')
  @HttpCode(200)
  @Authenticated(appScope('customer:auth'))
  @ApiOperation({
    summary: 'Open a customer session; the token is a Bearer token for the customer endpoints',
  })
  @ApiOkResponse({ type: LoginResponseDto })
  @ApiErrors({
    validation_failed: 'email or password missing or malformed',
    invalid_credentials: 'unknown email or wrong password (the same answer for both)',
    rate_limited: 'too many failed logins for this email or from this address (`Retry-After`)',
  })
  login(
    @Ctx() ctx: RequestContext,
    @Body() dto: LoginDto,
    @Req() request: FastifyRequest,
  ): Promise<LoginResponseDto> {
    return this.customers.login(ctx, dto, request.ip);
  }

  @Get('me')
  @Authenticated(customerScope('customer:read'))
  @ApiOperation({ summary: 'The logged-in customer' })
  @ApiOkResponse({ type: CustomerDto })
  me(@Ctx() ctx: RequestContext): Promise<CustomerDto> {
    return this.customers.me(ctx);
  }

  @Post('logout')
  @HttpCode(204)
  @Authenticated(customerScope('customer:read'))
  @ApiOperation({
    summary: 'End this session: its token answers 401 from now on, on every instance',
  })
  @ApiNoContentResponse()
  logout(@Ctx() ctx: RequestContext): Promise<void> {
    return this.customers.logout(ctx);
  }

  @Get('me/orders')
  @Authenticated(customerScope('order:read'))
  @ApiOperation({ summary: "The customer's own orders (same query and shape as GET /v1/orders)" })
  @ApiOkResponse({ type: OrderPageDto })
  @ApiErrors({ validation_failed: 'page, limit or status out of range or malformed' })
  myOrders(@Ctx() ctx: RequestContext, @Query() query: ListOrdersQuery): Promise<Page<OrderDto>> {
    return this.orders.list(ctx, query);
  }

  @Get('me/orders/:id')
  @ApiParam(ID_PARAM)
  @Authenticated(customerScope('order:read'))
  @ApiOperation({ summary: "One of the customer's own orders" })
  @ApiOkResponse({ type: OrderDto })
  @ApiErrors({
    validation_failed: 'id is not a positive integer',
    not_found: "unknown, or another customer's order",
  })
  myOrder(@Ctx() ctx: RequestContext, @IdParam() id: number): Promise<OrderDto> {
    return this.orders.get(ctx, id);
  }
}
