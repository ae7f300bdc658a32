import { type Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { AppViewDto } from '../apps/dto/app-view.dto.js';
import { CustomerDto } from '../customers/dto/customer.dto.js';
import { ImportStatusDto } from '../marketplace/dto/import-order.dto.js';
import { ORDER_STATUSES, type OrderStatus } from '../orders/order-status.js';
import { OrderDto } from '../orders/dto/order.dto.js';
import { FulfillmentDto, RefundDto } from '../orders/operations/dto/operations-output.dto.js';
import { PATCHED_FIELDS, type PatchedField } from '../orders/operations/order-patch.js';
import { WebhookEndpointDto } from '../webhooks/dto/webhook-endpoint.dto.js';
import { ProductDto } from '../products/dto/product.dto.js';
import type { ProductField, StockReason } from '../products/product-events.js';
import type { EventType } from '../outbox/event-types.js';

/*
 * Documentation of every event type's exact shape: the feed's items and the body of every
 * webhook delivery are one of these, told apart by `type`.
 */

class OrderEventData {
  @ApiProperty({ type: OrderDto }) object!: OrderDto;
}

class OrderStatusChangedData extends OrderEventData {
  @ApiProperty({
    enum: ORDER_STATUSES,
    description: 'The status before the change',
    example: 'pending',
  })
  previous_status!: OrderStatus;
}

class OrderUpdatedData extends OrderEventData {
  @ApiProperty({
    enum: PATCHED_FIELDS,
    isArray: true,
    description: 'The fields the change set to a new value',
    example: ['tags', 'metadata'],
  })
  changed!: PatchedField[];
}

class FulfillmentEventData {
  @ApiProperty({ type: FulfillmentDto }) object!: FulfillmentDto;
  @ApiProperty({ type: OrderDto, description: 'The order after the change' }) order!: OrderDto;
}

class RefundCreatedData {
  @ApiProperty({ type: RefundDto }) object!: RefundDto;
  @ApiProperty({ type: OrderDto, description: 'The order after the refund' }) order!: OrderDto;
}

class ImportFailedData {
  @ApiProperty({ type: ImportStatusDto }) object!: ImportStatusDto;
}

class CustomerCreatedData {
  @ApiProperty({ type: CustomerDto }) object!: CustomerDto;
}

class ErasedCustomerDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The erased customer, or null when the email had no account',
  })
  id!: number | null;
}

class CustomerErasedData {
  @ApiProperty({ type: ErasedCustomerDto }) object!: ErasedCustomerDto;
}

class ProductEventData {
  @ApiProperty({ type: ProductDto }) object!: ProductDto;
}

class ProductUpdatedData extends ProductEventData {
  @ApiProperty({
    enum: ['name', 'price', 'active'],
    isArray: true,
    description: 'The fields the change set to a new value',
    example: ['price'],
  })
  changed!: ProductField[];
}

class InventoryChangedData extends ProductEventData {
  @ApiProperty({ type: 'integer', description: '`inventory.available` before', example: 3 })
  previous_available!: number;
  @ApiProperty({
    enum: ['order', 'cancellation', 'refund', 'import', 'adjustment'],
    description: 'What moved the stock',
    example: 'order',
  })
  reason!: StockReason;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The order that took or gave back the stock (null for an adjustment)',
    example: 1042,
  })
  order_id!: number | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Adjustments only: the `reason` the inventory call gave (null when none)',
    example: 'Delivery 2026-11-27',
  })
  note?: string | null;
}

class AppEventData {
  @ApiProperty({ type: AppViewDto }) object!: AppViewDto;
}

class RevokedTokenDto {
  @ApiProperty({
    description: 'The token id (`jti`)',
    example: '12bdcdde-0c32-44c6-98d6-d0af9eaf9d53',
  })
  id!: string;
  @ApiProperty({ example: 'app_X3qZ6YTWil-WETcK' }) client_id!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:15:00.000Z' }) revoked_at!: string;
}

class TokenRevokedData {
  @ApiProperty({ type: RevokedTokenDto }) object!: RevokedTokenDto;
}

class EndpointDisabledData {
  @ApiProperty({ type: WebhookEndpointDto }) object!: WebhookEndpointDto;
}

/** One named schema per event type: `OrderCreatedEvent`, `AppSecretRotatedEvent`, … */
function eventSchema(type: EventType, data: Type, description: string): Type {
  class TypedEvent {
    @ApiProperty({ example: 'evt_3f1c9a0b7d2e4c5f8a6b1c2d3e4f5a6b' }) id!: string;
    @ApiProperty({ enum: [type], example: type }) type!: EventType;
    @ApiProperty({ format: 'date-time', example: '2026-11-23T10:15:00.000Z' }) created_at!: string;
    @ApiProperty({ type: data, description }) data!: unknown;
  }
  const name = type
    .split(/[._]/)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
  Object.defineProperty(TypedEvent, 'name', { value: `${name}Event` });
  return TypedEvent;
}

export const EVENT_SCHEMAS: Record<EventType, Type> = {
  'order.created': eventSchema('order.created', OrderEventData, 'The new order (API or import)'),
  'order.status_changed': eventSchema(
    'order.status_changed',
    OrderStatusChangedData,
    'The order after the change, and its previous status',
  ),
  'order.updated': eventSchema(
    'order.updated',
    OrderUpdatedData,
    'The order after a `PATCH` that changed it, and the names of the fields it changed',
  ),
  'fulfillment.created': eventSchema(
    'fulfillment.created',
    FulfillmentEventData,
    'The new fulfillment, and the order after it',
  ),
  'fulfillment.updated': eventSchema(
    'fulfillment.updated',
    FulfillmentEventData,
    'The fulfillment with its new tracking, and the order (its version unchanged)',
  ),
  'refund.created': eventSchema(
    'refund.created',
    RefundCreatedData,
    'The new refund, and the order after it',
  ),
  'marketplace_import.failed': eventSchema(
    'marketplace_import.failed',
    ImportFailedData,
    'The import status document, failed for good',
  ),
  'customer.created': eventSchema('customer.created', CustomerCreatedData, 'The new customer'),
  'customer.erased': eventSchema(
    'customer.erased',
    CustomerErasedData,
    'A person was erased (docs/BEHAVIOUR.md#customer-data-rights): the customer id only; erase your copies of the customer and of their orders, which were redacted (their `updated_at` moved)',
  ),
  'product.created': eventSchema(
    'product.created',
    ProductEventData,
    'The new product (API, CLI or import)',
  ),
  'product.updated': eventSchema(
    'product.updated',
    ProductUpdatedData,
    'The product after a change of its name, price or active state, and the fields changed',
  ),
  'product.inventory_changed': eventSchema(
    'product.inventory_changed',
    InventoryChangedData,
    'The product after its stock moved, with `available` before and why; an order over several products writes one per product',
  ),
  'app.secret_rotated': eventSchema(
    'app.secret_rotated',
    AppEventData,
    'The app (seen by it alone)',
  ),
  'app.scopes_changed': eventSchema(
    'app.scopes_changed',
    AppEventData,
    'The app (seen by it alone)',
  ),
  'app.deactivated': eventSchema('app.deactivated', AppEventData, 'The app (seen by it alone)'),
  'app.activated': eventSchema('app.activated', AppEventData, 'The app (seen by it alone)'),
  'token.revoked': eventSchema('token.revoked', TokenRevokedData, "The app's revoked token"),
  'endpoint.disabled': eventSchema(
    'endpoint.disabled',
    EndpointDisabledData,
    'The endpoint, disabled after 5 days of failed deliveries (seen by its app alone)',
  ),
};

/** `oneOf` the event schemas, discriminated by `type`. */
export const ANY_EVENT_SCHEMA = {
  oneOf: Object.values(EVENT_SCHEMAS).map((schema) => ({ $ref: getSchemaPath(schema) })),
  discriminator: {
    propertyName: 'type',
    mapping: Object.fromEntries(
      Object.entries(EVENT_SCHEMAS).map(([type, schema]) => [type, getSchemaPath(schema)]),
    ),
  },
};
