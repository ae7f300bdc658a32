import { Body, Controller, Get, Headers, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiHeader,
  ApiNotModifiedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AppCtx, Authenticated, Ctx } from '../auth/authenticated.decorator.js';
import { appScope } from '../auth/grants.js';
import type { AppContext, RequestContext } from '../auth/request-context.js';
import { ApiErrors } from '../common/errors/api-error.decorator.js';
import { AppError } from '../common/errors/app-error.js';
import { etagOf, type VersionPrecondition } from '../common/http/entity-tags.js';
import { ID_PARAM, IdParam } from '../common/http/id-param.decorator.js';
import {
  ApiIfMatch,
  conditionalRead,
  IfMatch,
  withETag,
} from '../common/http/preconditions.decorator.js';
import { validated } from '../common/http/validated.js';
import type { CursorMeta, PageWithCursorMeta } from '../common/pagination.js';
import { IDEMPOTENCY_ERRORS, Idempotent } from '../idempotency/idempotent.decorator.js';
import { ExpensiveRequests } from '../rate-limit/expensive-requests.js';
import { CreateProductDto, InventoryChangeDto, PatchProductDto } from './dto/product-input.dto.js';
import { ListProductsQuery } from './dto/product-queries.dto.js';
import { ProductDto, ProductPageDto } from './dto/product.dto.js';
import { encodeProductCursor, toProductListRequest } from './product-list.js';
import { toProductDto } from './product.mapper.js';
import { productNotFound, ProductsService } from './products.service.js';

const ETAG_HEADER = {
  description: '"<version>" of the product: `If-Match` on a write, `If-None-Match` on a read',
  schema: { type: 'string', example: '"3"' },
};

const WRITE_ERRORS = {
  not_found: "unknown or another tenant's product",
  precondition_failed: 'If-Match names another version of the product (nothing is written)',
} as const;

export const productPath = (p: ProductDto) => `/v1/products/${p.id}`;

/** The catalog (docs/BEHAVIOUR.md#products-and-stock): read with `products:read`, changed with `products:write`. */
@ApiTags('products')
@Controller('v1/products')
export class ProductsController {
  constructor(
    private readonly products: ProductsService,
    private readonly expensive: ExpensiveRequests,
  ) {}

  @Get()
  @Authenticated(appScope('products:read'))
  @ApiOperation({
    summary: "List the tenant's catalog, by id",
    description:
      'Every product of the tenant, inactive ones included (see `active`), in ascending `id` ' +
      'order. Page mode (`page`, `limit`, exact `meta.total`) or cursor mode (`cursor` from ' +
      '`meta.next_cursor`, which carries the filters): a walk by cursor sees every product that ' +
      'existed when it started exactly once. Filters: `sku` (exact), `active`, `updated_after` ' +
      '(any change, stock included). Needs an app token with `products:read`.',
  })
  @ApiOkResponse({ type: ProductPageDto })
  @ApiErrors({
    validation_failed:
      'page, limit or a filter malformed or out of range (never clamped); a cursor not from this list, combined with page, or with other filters',
  })
  async list(
    @Ctx() ctx: RequestContext,
    @Query(validated) query: ListProductsQuery,
  ): Promise<{ data: ProductDto[]; meta: PageWithCursorMeta | CursorMeta }> {
    const request = toProductListRequest(query);
    const { spec } = request;
    const { rows, total } = await this.expensive.run(ctx, () =>
      this.products.list(ctx, spec, request.mode === 'page'),
    );
    const page = rows.slice(0, spec.limit);
    const hasMore = rows.length > spec.limit;
    const last = page.at(-1);
    const cursor = hasMore && last ? encodeProductCursor(spec.filters, last.id) : null;
    const data = page.map(toProductDto);
    if (request.mode === 'cursor') {
      return { data, meta: { limit: spec.limit, next_cursor: cursor, has_more: hasMore } };
    }
    const count = total ?? 0;
    return {
      data,
      meta: {
        page: request.page,
        limit: spec.limit,
        total: count,
        total_pages: Math.ceil(count / spec.limit),
        next_cursor: cursor,
        has_more: hasMore,
      },
    };
  }

  @Get(':id')
  @ApiParam(ID_PARAM)
  @Authenticated(appScope('products:read'))
  @ApiOperation({
    summary: 'Read one product',
    description:
      'A product of the tenant’s catalog, active or not, with its stock and `ETag`; a product of ' +
      'another tenant is 404. Needs an app token with `products:read`.',
  })
  @ApiHeader({
    name: 'If-None-Match',
    required: false,
    description: 'The `ETag` of the copy the client holds: 304 without a body while it is current',
  })
  @ApiOkResponse({ type: ProductDto, headers: { ETag: ETAG_HEADER } })
  @ApiNotModifiedResponse({ description: 'The product is still at the version named' })
  @ApiErrors({
    validation_failed: 'id is not a positive integer, or a malformed If-None-Match',
    not_found: 'no such product in this tenant',
  })
  async get(
    @Ctx() ctx: RequestContext,
    @IdParam() id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProductDto | undefined> {
    const row = await this.products.find(ctx, id);
    if (!row) throw productNotFound(id);
    return conditionalRead(reply, toProductDto(row), ifNoneMatch);
  }

  @Post()
  @Authenticated(appScope('products:write'))
  @Idempotent<ProductDto>({
    status: 201,
    headers: (p) => ({ location: productPath(p), etag: etagOf(p.version) }),
  })
  @ApiOperation({
    summary: 'Create a product',
    description:
      'A new product of the tenant’s catalog, in the tenant currency; with `inventory` it ' +
      'tracks stock from the start. Records `product.created`. Needs an app token with ' +
      '`products:write`.',
  })
  @ApiCreatedResponse({
    type: ProductDto,
    headers: {
      Location: { description: '/v1/products/{id}', schema: { type: 'string' } },
      ETag: ETAG_HEADER,
    },
  })
  @ApiErrors({ ...IDEMPOTENCY_ERRORS, sku_taken: 'the tenant already has a product with this sku' })
  async create(
    @AppCtx() ctx: AppContext,
    @Body(validated) dto: CreateProductDto,
  ): Promise<ProductDto> {
    if (dto.inventory && !dto.inventory.tracked && (dto.inventory.available ?? 0) !== 0) {
      // An untracked product counts nothing: a count sent with it would be silently dropped.
      throw new AppError('validation_failed', 'inventory.available needs inventory.tracked: true', {
        details: [{ field: 'inventory.available', message: 'needs inventory.tracked: true' }],
      });
    }
    const product = await this.products.create(ctx, {
      sku: dto.sku,
      name: dto.name,
      price: dto.price,
      active: dto.active ?? true,
      stock: dto.inventory?.tracked ? (dto.inventory.available ?? 0) : undefined,
    });
    return toProductDto(product);
  }

  @Patch(':id')
  @ApiParam(ID_PARAM)
  @Authenticated(appScope('products:write'))
  @ApiIfMatch('the product')
  @ApiOperation({
    summary: 'Change the name, price or active state of a product',
    description:
      'Orders placed from now on take the new price; existing orders keep theirs. A change bumps ' +
      '`version` and records `product.updated` naming the changed fields; a `PATCH` that changes ' +
      'nothing answers 200 and writes nothing. Needs an app token with `products:write`.',
  })
  @ApiOkResponse({ type: ProductDto, headers: { ETag: ETAG_HEADER } })
  @ApiErrors({
    validation_failed: 'an unknown field, a bound broken, or a malformed If-Match',
    ...WRITE_ERRORS,
  })
  async patch(
    @AppCtx() ctx: AppContext,
    @IdParam() id: number,
    @Body(validated) dto: PatchProductDto,
    @IfMatch() ifMatch: VersionPrecondition | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProductDto> {
    return withETag(reply, toProductDto(await this.products.update(ctx, id, dto, ifMatch)));
  }

  @Post(':id/inventory')
  @ApiParam(ID_PARAM)
  @Authenticated(appScope('products:write'))
  @Idempotent<ProductDto>({ status: 200, headers: (p) => ({ etag: etagOf(p.version) }) })
  @ApiIfMatch('the product')
  @ApiOperation({
    summary: 'Receive, correct or count stock',
    description:
      '`{adjustment: N}` adds N to `available` (a delivery; negative for a correction, which may ' +
      'leave it below 0), `{available: N}` sets a count (N ≥ 0). The first call turns ' +
      '`inventory.tracked` on. Records `product.inventory_changed` with reason `adjustment`. ' +
      'Send an Idempotency-Key: an adjustment repeated by a retry would count twice. Needs an ' +
      'app token with `products:write`.',
  })
  @ApiOkResponse({ type: ProductDto, headers: { ETag: ETAG_HEADER } })
  @ApiErrors({
    ...IDEMPOTENCY_ERRORS,
    validation_failed:
      'not exactly one of adjustment and available, a bound broken, or a malformed If-Match or Idempotency-Key',
    ...WRITE_ERRORS,
  })
  async inventory(
    @AppCtx() ctx: AppContext,
    @IdParam() id: number,
    @Body(validated) dto: InventoryChangeDto,
    @IfMatch() ifMatch: VersionPrecondition | undefined,
  ): Promise<ProductDto> {
    return toProductDto(await this.products.changeInventory(ctx, id, dto, ifMatch));
  }
}
