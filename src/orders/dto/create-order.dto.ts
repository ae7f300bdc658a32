import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsInt, IsOptional, isEmail, Max, Min } from 'class-validator';
import { hasCharLength } from '../../common/char-length.js';
import { hasOnlyKeys, isPlainRecord } from '../../common/http/validated.js';
import { Chars, Line, NestedArray, NestedObject } from '../../common/validation.js';
import { isSingleLine } from '../../common/string-rules.js';

export class OrderCustomerInput {
  @ApiPropertyOptional({
    type: 'integer',
    description:
      'Links the order to this registered customer of the tenant (else 422 unknown_customer)',
    example: 17,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  id?: number;

  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Ada Lovelace' })
  @Line(1, 200)
  name!: string;

  @ApiProperty({
    format: 'email',
    maxLength: 254,
    description: 'Without `id`, a registered customer with this email (any case) is linked',
    example: 'ada@example.com',
  })
  @IsEmail()
  @Chars(3, 254)
  email!: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, example: '+1 555 0100' })
  @IsOptional()
  @Line(1, 200)
  phone?: string;
}

export class ShippingAddressInput {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'US' })
  @Line(1, 200)
  country!: string;

  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Springfield' })
  @Line(1, 200)
  city!: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, example: 'Downtown' })
  @IsOptional()
  @Line(1, 200)
  district?: string;

  @ApiProperty({ minLength: 1, maxLength: 200, example: '742 Evergreen Terrace' })
  @Line(1, 200)
  address!: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, example: '62704' })
  @IsOptional()
  @Line(1, 200)
  postal_code?: string;
}

export class OrderItemInput {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  product_id!: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 10000, example: 3 })
  @IsInt()
  @Min(1)
  @Max(10000)
  quantity!: number;
}

/**
 * The customer of the request examples in /docs ("Try it out"): a guest, since an `id` only
 * works for a customer registered first (the demo data has none: 422 unknown_customer).
 */
export const GUEST_CUSTOMER_EXAMPLE = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  phone: '+1 555 0100',
};

/** Prices are not sent: they come from the tenant's catalog at creation time. */
export class CreateOrderDto {
  @ApiProperty({ type: OrderCustomerInput, example: GUEST_CUSTOMER_EXAMPLE })
  @NestedObject(() => OrderCustomerInput)
  customer!: OrderCustomerInput;

  @ApiProperty({ type: ShippingAddressInput })
  @NestedObject(() => ShippingAddressInput)
  shipping_address!: ShippingAddressInput;

  @ApiProperty({ type: [OrderItemInput], minItems: 1, maxItems: 100 })
  @NestedArray(() => OrderItemInput, 1, 100)
  items!: OrderItemInput[];

  /**
   * The instance the ValidationPipe makes of a certainly valid body, else undefined (the pipe
   * decides): the decorators above, written out for the common shape (validated.ts).
   * create-order.dto.spec.ts holds the two to the same answers.
   */
  static fastParse(body: unknown): CreateOrderDto | undefined {
    if (!isPlainRecord(body) || !hasOnlyKeys(body, ORDER_KEYS)) return undefined;
    const customer = customerOf(body.customer);
    const address = addressOf(body.shipping_address);
    const items = itemsOf(body.items);
    if (!customer || !address || !items) return undefined;
    return Object.assign(new CreateOrderDto(), body, {
      customer,
      shipping_address: address,
      items,
    });
  }
}

const ORDER_KEYS = new Set(['customer', 'shipping_address', 'items']);
const CUSTOMER_KEYS = new Set(['id', 'name', 'email', 'phone']);
const ADDRESS_KEYS = new Set(['country', 'city', 'district', 'address', 'postal_code']);
const ITEM_KEYS = new Set(['product_id', 'quantity']);

/**
 * `test(value)` on `record[key]`, and `@IsOptional()` where `optional` (a missing key; null is
 * left to the pipe).
 */
function field(
  record: Record<string, unknown>,
  key: string,
  test: (value: unknown) => boolean,
  optional = false,
): boolean {
  return key in record ? test(record[key]) : optional;
}

/** `@Line(min, max)`. */
const line = (min: number, max: number) => (value: unknown) => isSingleLine(value, min, max);

/** `@IsInt() @Min(min) @Max(max)`. */
function int(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function customerOf(value: unknown): OrderCustomerInput | undefined {
  if (!isPlainRecord(value) || !hasOnlyKeys(value, CUSTOMER_KEYS)) return undefined;
  const valid =
    (!('id' in value) || int(value.id, 1, Number.MAX_SAFE_INTEGER)) &&
    field(value, 'name', line(1, 200)) &&
    isEmail(value.email) &&
    field(value, 'email', (v) => typeof v === 'string' && hasCharLength(v, 3, 254)) &&
    field(value, 'phone', line(1, 200), true);
  return valid ? Object.assign(new OrderCustomerInput(), value) : undefined;
}

function addressOf(value: unknown): ShippingAddressInput | undefined {
  if (!isPlainRecord(value) || !hasOnlyKeys(value, ADDRESS_KEYS)) return undefined;
  const valid =
    field(value, 'country', line(1, 200)) &&
    field(value, 'city', line(1, 200)) &&
    field(value, 'district', line(1, 200), true) &&
    field(value, 'address', line(1, 200)) &&
    field(value, 'postal_code', line(1, 200), true);
  return valid ? Object.assign(new ShippingAddressInput(), value) : undefined;
}

function itemsOf(value: unknown): OrderItemInput[] | undefined {
  if (!Array.isArray(value) || value.length < 1 || value.length > 100) return undefined;
  const items: OrderItemInput[] = [];
  for (const item of value as unknown[]) {
    if (!isPlainRecord(item) || !hasOnlyKeys(item, ITEM_KEYS)) return undefined;
    if (!int(item.product_id, 1, Number.MAX_SAFE_INTEGER) || !int(item.quantity, 1, 10000)) {
      return undefined;
    }
    items.push(Object.assign(new OrderItemInput(), item));
  }
  return items;
}
