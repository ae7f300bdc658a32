import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsInt, IsOptional, Max, Min } from 'class-validator';
import { Chars, NestedArray, NestedObject } from '../../common/validation.js';

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
  @Chars(1, 200)
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
  @Chars(1, 200)
  phone?: string;
}

export class ShippingAddressInput {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'US' })
  @Chars(1, 200)
  country!: string;

  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Springfield' })
  @Chars(1, 200)
  city!: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, example: 'Downtown' })
  @IsOptional()
  @Chars(1, 200)
  district?: string;

  @ApiProperty({ minLength: 1, maxLength: 200, example: '742 Evergreen Terrace' })
  @Chars(1, 200)
  address!: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, example: '62704' })
  @IsOptional()
  @Chars(1, 200)
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
}
