import { renderAmount } from '../common/money.js';
import type { OrderDto } from './dto/order.dto.js';
import type { ItemRow, OrderRow } from './orders.repository.js';

export function toOrderDto(row: OrderRow, items: ItemRow[]): OrderDto {
  return {
    id: row.id,
    version: row.version,
    status: row.status,
    fulfillment_status: row.fulfillment_status,
    total: renderAmount(row.total_minor, row.currency),
    refunded_total: renderAmount(row.refunded_minor, row.currency),
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
      id: i.id,
      product_id: i.product_id,
      quantity: i.quantity,
      fulfilled_quantity: i.fulfilled_quantity,
      refunded_quantity: i.refunded_quantity,
      sku: i.sku,
      name: i.name,
      unit_price: renderAmount(i.unit_price_minor, row.currency),
      total: renderAmount(i.total_minor, row.currency),
    })),
    note: row.note,
    tags: row.tags,
    metadata: row.metadata,
    cancellation:
      row.cancel_reason === null
        ? null
        : {
            reason: row.cancel_reason,
            note: row.cancel_note,
            cancelled_at: row.cancelled_at!.toISOString(),
          },
    source: row.source,
    marketplace: row.marketplace,
    external_order_id: row.external_order_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
