import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { CursorMeta, PageWithCursorMeta } from '../../common/pagination.js';
import { AMOUNT_DOC } from '../../common/money.js';

export class InventoryDto {
  @ApiProperty({
    description:
      'Whether orders take stock of this product (turned on by the first `POST /v1/products/{id}/inventory`); an untracked product is never short',
    example: true,
  })
  tracked!: boolean;

  @ApiProperty({
    type: 'integer',
    description:
      'Units that can still be sold. Orders through the API never take it below 0; marketplace imports (sold elsewhere already) may: a negative value is the oversold signal',
    example: 12,
  })
  available!: number;
}

export class ProductDto {
  @ApiProperty({ type: 'integer', example: 1 }) id!: number;
  @ApiProperty({ example: 'TSHIRT-BLK-M' }) sku!: string;
  @ApiProperty({ example: 'T-shirt, black, M' }) name!: string;
  @ApiProperty({ description: `In the tenant currency. ${AMOUNT_DOC}`, example: 19.99 })
  price!: number;
  @ApiProperty({ example: 'USD' }) currency!: string;
  @ApiProperty({ description: 'Inactive products cannot be ordered', example: true })
  active!: boolean;
  @ApiProperty({ type: InventoryDto }) inventory!: InventoryDto;
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description:
      '1 at creation, + 1 for every change of the product (its stock included); the `ETag` is this version in quotes',
    example: 3,
  })
  version!: number;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:15:00.000Z' }) created_at!: string;
  @ApiProperty({
    format: 'date-time',
    description: 'Moves with `version`',
    example: '2026-11-23T10:20:00.000Z',
  })
  updated_at!: string;
}

@ApiExtraModels(PageWithCursorMeta, CursorMeta)
export class ProductPageDto {
  @ApiProperty({ type: [ProductDto] }) data!: ProductDto[];
  @ApiProperty({
    description:
      'Without `cursor` (page mode): `page`, `limit`, exact `total`, `total_pages`, `next_cursor`, `has_more`. With `cursor`: `limit`, `next_cursor`, `has_more`.',
    anyOf: [{ $ref: getSchemaPath(PageWithCursorMeta) }, { $ref: getSchemaPath(CursorMeta) }],
  })
  meta!: PageWithCursorMeta | CursorMeta;
}
