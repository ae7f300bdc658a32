/** Every kind of event the log holds (docs/BEHAVIOUR.md#events). */
export const EVENT_TYPES = [
  'order.created',
  'order.status_changed',
  'order.updated',
  'fulfillment.created',
  'fulfillment.updated',
  'refund.created',
  'marketplace_import.failed',
  'customer.created',
  'customer.erased',
  'product.created',
  'product.updated',
  'product.inventory_changed',
  'app.secret_rotated',
  'app.scopes_changed',
  'app.deactivated',
  'app.activated',
  'token.revoked',
  'endpoint.disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
