import { renderAmount } from '../../common/money.js';
import type { FulfillmentDto, RefundDto } from './dto/operations-output.dto.js';
import type { FulfillmentRow } from './fulfillments.repository.js';
import type { RefundRow } from './refunds.repository.js';

export function toFulfillmentDto(row: FulfillmentRow): FulfillmentDto {
  return {
    id: row.id,
    order_id: row.order_id,
    items: row.items.map((i) => ({ item_id: i.item_id, quantity: i.quantity })),
    tracking:
      row.tracking === null
        ? null
        : { company: row.tracking.company, number: row.tracking.number, url: row.tracking.url },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function toRefundDto(row: RefundRow): RefundDto {
  return {
    id: row.id,
    order_id: row.order_id,
    amount: renderAmount(row.amount_minor, row.currency),
    currency: row.currency,
    items: row.items.map((i) => ({ item_id: i.item_id, quantity: i.quantity })),
    reason: row.reason,
    restocked: row.restocked,
    created_at: row.created_at.toISOString(),
  };
}
