// The Order's and the Product's JSON as the service writes them (src/orders/order.mapper.ts,
// src/products/product.mapper.ts, src/common/money.ts), for the reference and the floor server.

import iso4217 from 'currency-codes';

// An amount in the currency's ISO 4217 digits, as src/common/money.ts renderAmount writes it.
const DIGITS = new Map(iso4217.data.map((c) => [c.code, c.digits]));
const SCALE = [1, 10, 100, 1000, 10000];
const money = (minor, currency) => minor / SCALE[DIGITS.get(currency) ?? 2];

export function orderJson(row, items) {
  return {
    id: row.id,
    version: row.version,
    status: row.status,
    fulfillment_status: row.fulfillment_status,
    total: money(row.total_minor, row.currency),
    refunded_total: money(row.refunded_minor, row.currency),
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
      unit_price: money(i.unit_price_minor, row.currency),
      total: money(i.total_minor, row.currency),
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
            cancelled_at: new Date(row.cancelled_at).toISOString(),
          },
    source: row.source,
    marketplace: row.marketplace,
    external_order_id: row.external_order_id,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** A product as row_to_json gives it (timestamps as text), with the tenant's currency. */
export function productJson(row, currency) {
  return {
    id: row.id,
    sku: row.sku,
    name: row.name,
    price: money(row.price_minor, currency),
    currency,
    active: row.active,
    inventory: { tracked: row.inventory_tracked, available: row.available },
    version: row.version,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}
