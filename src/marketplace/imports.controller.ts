import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppCtx, Authenticated } from '../auth/authenticated.decorator.js';
import { appScope } from '../auth/grants.js';
import type { AppContext } from '../auth/request-context.js';
import { ApiErrors } from '../common/errors/api-error.decorator.js';
import type { HttpAnswer } from '../common/http/http-result.js';
import { IDEMPOTENCY_ERRORS, Idempotent } from '../idempotency/idempotent.decorator.js';
import { ImportAckDto, ImportOrderDto, ImportStatusDto } from './dto/import-order.dto.js';
import { ImportsService } from './imports.service.js';
import { validated } from '../common/http/validated.js';

/** Both answers of an import point at its status resource. */
const STATUS_LOCATION = {
  Location: {
    description: 'The import’s status resource',
    schema: { type: 'string', example: '/v1/marketplace/orders/import/trendyol/TY-10042' },
    required: true,
  },
};

@ApiTags('marketplace')
@Controller('v1/marketplace/orders/import')
@Authenticated(appScope('marketplace:import'))
export class ImportsController {
  constructor(private readonly imports: ImportsService) {}

  @Post()
  @Idempotent({ status: 202 })
  @ApiOperation({
    summary: 'Queue an order from a marketplace',
    description:
      'Validated at once; a background worker creates the order. The same (marketplace, external_order_id) ' +
      'again answers 200 with its current state and never creates a second order. Needs an ' +
      'app token with `marketplace:import`.',
  })
  @ApiAcceptedResponse({
    type: ImportAckDto,
    description: 'Queued; `Location` is the status resource',
    headers: STATUS_LOCATION,
  })
  @ApiOkResponse({
    type: ImportStatusDto,
    description: 'Already accepted earlier: its current state',
    headers: STATUS_LOCATION,
  })
  @ApiErrors({
    ...IDEMPOTENCY_ERRORS,
    validation_failed:
      'a field breaks a bound, or a line total is not unit_price × quantity (details)',
  })
  accept(
    @AppCtx() ctx: AppContext,
    @Body(validated) dto: ImportOrderDto,
  ): Promise<HttpAnswer<ImportAckDto | ImportStatusDto>> {
    return this.imports.accept(ctx, dto);
  }

  @Get(':marketplace/:external_order_id')
  @ApiOperation({
    summary:
      'State of an import: queued, processing, imported (with order_id) or failed (with error)',
    description:
      'The import of this (marketplace, external_order_id) in the tenant, whichever app queued ' +
      'it: its status, the created order’s id once imported, the last failure reason and the ' +
      'attempts so far. Needs an app token with `marketplace:import`.',
  })
  @ApiOkResponse({ type: ImportStatusDto })
  @ApiErrors({ not_found: 'no such import in this tenant' })
  status(
    @AppCtx() ctx: AppContext,
    @Param('marketplace', validated) marketplace: string,
    @Param('external_order_id', validated) externalOrderId: string,
  ): Promise<ImportStatusDto> {
    return this.imports.status(ctx, marketplace, externalOrderId);
  }
}
