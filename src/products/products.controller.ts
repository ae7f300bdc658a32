import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, Ctx } from '../auth/authenticated.decorator.js';
import { ExpensiveRequests } from '../rate-limit/expensive-requests.js';
import { ApiErrors } from '../common/errors/api-error.decorator.js';
import { appScope } from '../auth/grants.js';
import type { RequestContext } from '../auth/request-context.js';
import { AppError } from '../common/errors/app-error.js';
import { ID_PARAM, IdParam } from '../common/http/id-param.decorator.js';
import { fromMinorUnits } from '../common/money.js';
import { PageQuery, toPage, type Page } from '../common/pagination.js';
import { ProductDto, ProductPageDto } from './dto/product.dto.js';
import type { ProductRow } from './products.repository.js';
import { ProductsService } from './products.service.js';
import { validated } from '../common/http/validated.js';

@ApiTags('products')
@Controller('v1/products')
@Authenticated(appScope('products:read'))
export class ProductsController {
  constructor(
    private readonly products: ProductsService,
    private readonly expensive: ExpensiveRequests,
  ) {}

  @Get()
  @ApiOperation({
    summary: "List the tenant's catalog, by id",
    description:
      'Every product of the tenant, inactive ones included (see `active`), in ascending `id` ' +
      'order, by `page` and `limit` with an exact `meta.total`; prices are in the tenant ' +
      'currency. Needs an app token with `products:read`.',
  })
  @ApiOkResponse({ type: ProductPageDto })
  @ApiErrors({ validation_failed: 'page or limit out of range or malformed (never clamped)' })
  async list(
    @Ctx() ctx: RequestContext,
    @Query(validated) query: PageQuery,
  ): Promise<Page<ProductDto>> {
    const { rows, total } = await this.expensive.run(ctx, () => this.products.page(ctx, query));
    return toPage(rows.map(toProductDto), total, query);
  }

  @Get(':id')
  @ApiParam(ID_PARAM)
  @ApiOperation({
    summary: 'Read one product',
    description:
      'A product of the tenant’s catalog, active or not; a product of another tenant is 404. ' +
      'Needs an app token with `products:read`.',
  })
  @ApiOkResponse({ type: ProductDto })
  @ApiErrors({
    validation_failed: 'id is not a positive integer',
    not_found: 'no such product in this tenant',
  })
  async get(@Ctx() ctx: RequestContext, @IdParam() id: number): Promise<ProductDto> {
    const row = await this.products.find(ctx, id);
    if (!row) throw new AppError('not_found', `product ${id} not found`);
    return toProductDto(row);
  }
}

function toProductDto(row: ProductRow): ProductDto {
  return {
    id: row.id,
    sku: row.sku,
    name: row.name,
    price: fromMinorUnits(row.price_minor),
    currency: row.currency,
    active: row.active,
  };
}
