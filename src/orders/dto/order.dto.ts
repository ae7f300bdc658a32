import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { CursorMeta, PageWithCursorMeta } from '../../common/pagination.js';
import { ORDER_STATUSES, type OrderStatus } from '../order-status.js';

export class OrderCustomerDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The linked registered customer, or null',
  })
  id!: number | null;
  @ApiProperty() name!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ type: String, nullable: true }) phone!: string | null;
}

export class ShippingAddressDto {
  @ApiProperty() country!: string;
  @ApiProperty() city!: string;
  @ApiProperty({ type: String, nullable: true }) district!: string | null;
  @ApiProperty() address!: string;
  @ApiProperty({ type: String, nullable: true }) postal_code!: string | null;
}

export class OrderItemDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Null for an imported line whose sku is not in the catalog',
  })
  product_id!: number | null;
  @ApiProperty({ type: 'integer' }) quantity!: number;
  @ApiProperty() sku!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ example: 19.99 }) unit_price!: number;
  @ApiProperty({ description: 'unit_price × quantity, exact', example: 59.97 }) total!: number;
}

export class OrderDto {
  @ApiProperty({ type: 'integer' }) id!: number;
  @ApiProperty({ enum: ORDER_STATUSES }) status!: OrderStatus;
  @ApiProperty({ description: 'Sum of the line totals, exact, at most 2 decimals', example: 59.97 })
  total!: number;
  @ApiProperty({ example: 'USD' }) currency!: string;
  @ApiProperty({ type: OrderCustomerDto }) customer!: OrderCustomerDto;
  @ApiProperty({ type: ShippingAddressDto }) shipping_address!: ShippingAddressDto;
  @ApiProperty({ type: [OrderItemDto] }) items!: OrderItemDto[];
  @ApiProperty({ enum: ['api', 'marketplace'] }) source!: 'api' | 'marketplace';
  @ApiProperty({ type: String, nullable: true }) marketplace!: string | null;
  @ApiProperty({ type: String, nullable: true }) external_order_id!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

@ApiExtraModels(PageWithCursorMeta, CursorMeta)
export class OrderPageDto {
  @ApiProperty({ type: [OrderDto] }) data!: OrderDto[];
  @ApiProperty({
    description:
      'Without `cursor` (page mode): `page`, `limit`, exact `total`, `total_pages`, `next_cursor`, `has_more`. With `cursor`: `limit`, `next_cursor`, `has_more` (no count, so every page costs the same).',
    anyOf: [{ $ref: getSchemaPath(PageWithCursorMeta) }, { $ref: getSchemaPath(CursorMeta) }],
  })
  meta!: PageWithCursorMeta | CursorMeta;
}
