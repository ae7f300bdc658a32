import { fromMinorUnits } from '../common/money.js';
import type { OrderDto } from './dto/order.dto.js';
import type { ItemRow, OrderRow } from './orders.repository.js';

export function toOrderDto(row: OrderRow, items: ItemRow[]): OrderDto {
  return {
    id: row.id,
    status: row.status,
    total: fromMinorUnits(row.total_minor),
    currency: row.currency,
    customer: {
      id: row.customer_id,
      name: row.customer_name,
      email: row.customer_email,
      phone: row.customer_phone,
    },
    shipping_address: {
      country: row.shipping_country,
      city: row.shipping_city,
      district: row.shipping_district,
      address: row.shipping_address,
      postal_code: row.shipping_postal_code,
    },
    items: items.map((i) => ({
      product_id: i.product_id,
      quantity: i.quantity,
      sku: i.sku,
      name: i.name,
      unit_price: fromMinorUnits(i.unit_price_minor),
      total: fromMinorUnits(i.total_minor),
    })),
    source: row.source,
    marketplace: row.marketplace,
    external_order_id: row.external_order_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
