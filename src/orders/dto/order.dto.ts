import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { CursorMeta, PageWithCursorMeta } from '../../common/pagination.js';
import {
  CANCEL_REASONS,
  FULFILLMENT_STATUSES,
  type CancelReason,
  type FulfillmentStatus,
} from '../order-operations.js';
import { ORDER_STATUSES, type OrderStatus } from '../order-status.js';
import { AMOUNT_DOC } from '../../common/money.js';

export class OrderCustomerDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The linked registered customer, or null',
    example: 17,
  })
  id!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Null only after the person was erased',
    example: 'Ada Lovelace',
  })
  name!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Null only after the person was erased',
    example: 'ada@example.com',
  })
  email!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '+1 555 0100' }) phone!: string | null;
}

export class ShippingAddressDto {
  @ApiProperty({ example: 'US' }) country!: string;
  @ApiProperty({ example: 'Springfield' }) city!: string;
  @ApiProperty({ type: String, nullable: true, example: 'Downtown' }) district!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Null only after the person was erased',
    example: '742 Evergreen Terrace',
  })
  address!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'After an erasure only its area part is kept (2–5 letters or digits before the first space or hyphen), or null',
    example: '62704',
  })
  postal_code!: string | null;
}

export class OrderItemDto {
  @ApiProperty({
    type: 'integer',
    description: 'The line’s id, stable: fulfillments and refunds name lines by it',
    example: 311,
  })
  id!: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Null for an imported line whose sku is not in the catalog',
    example: 1,
  })
  product_id!: number | null;
  @ApiProperty({ type: 'integer', example: 3 }) quantity!: number;
  @ApiProperty({ type: 'integer', description: 'Shipped by fulfillments so far', example: 1 })
  fulfilled_quantity!: number;
  @ApiProperty({ type: 'integer', description: 'Refunded by refunds so far', example: 0 })
  refunded_quantity!: number;
  @ApiProperty({ example: 'TSHIRT-BLK-M' }) sku!: string;
  @ApiProperty({ example: 'T-shirt, black, M' }) name!: string;
  @ApiProperty({ description: `The catalog price when ordered. ${AMOUNT_DOC}`, example: 19.99 })
  unit_price!: number;
  @ApiProperty({ description: `unit_price × quantity. ${AMOUNT_DOC}`, example: 59.97 })
  total!: number;
}

export class OrderCancellationDto {
  @ApiProperty({ enum: CANCEL_REASONS, example: 'customer' }) reason!: CancelReason;
  @ApiProperty({ type: String, nullable: true, example: 'Ordered the wrong size' })
  note!: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:25:00.000Z' })
  cancelled_at!: string;
}

export class OrderDto {
  @ApiProperty({ type: 'integer', example: 42 }) id!: number;
  @ApiProperty({
    type: 'integer',
    description:
      '1 at creation, +1 for every change of the order; the `ETag` is `"<version>"` and `If-Match` names it',
    example: 3,
  })
  version!: number;
  @ApiProperty({ enum: ORDER_STATUSES, example: 'paid' }) status!: OrderStatus;
  @ApiProperty({ enum: FULFILLMENT_STATUSES, example: 'partial' })
  fulfillment_status!: FulfillmentStatus;
  @ApiProperty({ description: `Sum of the line totals. ${AMOUNT_DOC}`, example: 59.97 })
  total!: number;
  @ApiProperty({ description: `Sum of the refunds so far. ${AMOUNT_DOC}`, example: 19.99 })
  refunded_total!: number;
  @ApiProperty({ description: 'ISO 4217, the tenant currency', example: 'USD' })
  currency!: string;
  @ApiProperty({ type: OrderCustomerDto }) customer!: OrderCustomerDto;
  @ApiProperty({ type: ShippingAddressDto }) shipping_address!: ShippingAddressDto;
  @ApiProperty({ type: [OrderItemDto] }) items!: OrderItemDto[];
  @ApiProperty({ type: String, nullable: true, maxLength: 5000, example: 'Gift wrap, please' })
  note!: string | null;
  @ApiProperty({
    type: [String],
    description: 'At most 50 tags of 1–40 characters, sorted, unique regardless of case',
    example: ['gift', 'vip'],
  })
  tags!: string[];
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 500 },
    description: 'At most 50 keys of 1–40 characters from `[A-Za-z0-9_.-]`, string values',
    example: { erp_id: 'SO-10442' },
  })
  metadata!: Record<string, string>;
  @ApiProperty({
    type: OrderCancellationDto,
    nullable: true,
    description: 'Null unless the order was cancelled',
  })
  cancellation!: OrderCancellationDto | null;
  @ApiProperty({ enum: ['api', 'marketplace'], example: 'marketplace' })
  source!: 'api' | 'marketplace';
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Null unless `source` is marketplace',
    example: 'trendyol',
  })
  marketplace!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Null unless `source` is marketplace',
    example: 'TY-10472285',
  })
  external_order_id!: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:15:00.000Z' }) created_at!: string;
  @ApiProperty({
    format: 'date-time',
    description:
      'Moves on every change of the order (with `version`): a status change, an operation, a `PATCH` that changes something, or its linking to a customer who verified the email',
    example: '2026-11-23T10:20:00.000Z',
  })
  updated_at!: string;
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
