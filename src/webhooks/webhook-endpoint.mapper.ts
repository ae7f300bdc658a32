import type { WebhookDeliveryDto, WebhookEndpointDto } from './dto/webhook-endpoint.dto.js';
import type { DeliveryRow, EndpointRow } from './webhook-endpoints.repository.js';

export function toEndpointDto(row: EndpointRow): WebhookEndpointDto {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.event_types,
    active: row.active,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function toDeliveryDto(row: DeliveryRow): WebhookDeliveryDto {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    attempts: row.attempts,
    state: row.state,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    last_attempt_at: row.last_attempt_at?.toISOString() ?? null,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}
