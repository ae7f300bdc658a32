import type { Scope } from '../auth/scopes.js';
import type { EventType } from '../outbox/event-types.js';

/**
 * Which approved scopes let an app receive an event type by webhook: the scope that reads
 * the event's object through the API, or `events:read` (the feed shows every event).
 * `webhooks:write` alone never does: it would read orders and customers without
 * `orders:read`. An app's own events (admin actions, its endpoints) need nothing. Checked
 * against the app's scopes at dispatch, so a scope change or deactivation stops deliveries.
 */
export const ENTITLING_SCOPES: Record<EventType, readonly Scope[]> = {
  'order.created': ['orders:read', 'events:read'],
  'order.status_changed': ['orders:read', 'events:read'],
  'order.updated': ['orders:read', 'events:read'],
  'fulfillment.created': ['orders:read', 'events:read'],
  'fulfillment.updated': ['orders:read', 'events:read'],
  'refund.created': ['orders:read', 'events:read'],
  'marketplace_import.failed': ['marketplace:import', 'events:read'],
  'customer.created': ['customer:auth', 'customer:manage', 'events:read'],
  // Whoever may hold a copy of the person (their account, or their orders) learns to erase it.
  'customer.erased': [
    'customer:auth',
    'customer:manage',
    'customer:privacy',
    'orders:read',
    'events:read',
  ],
  'product.created': ['products:read', 'events:read'],
  'product.updated': ['products:read', 'events:read'],
  'product.inventory_changed': ['products:read', 'events:read'],
  'app.secret_rotated': [],
  'app.scopes_changed': [],
  'app.deactivated': [],
  'app.activated': [],
  'token.revoked': [],
  'endpoint.disabled': [],
};

/** The map as two parallel arrays (type, scope), for a SQL `unnest`. */
export function entitlementPairs(): [string[], string[]] {
  const pairs = Object.entries(ENTITLING_SCOPES).flatMap(([type, scopes]) =>
    scopes.map((scope) => [type, scope] as const),
  );
  return [pairs.map(([type]) => type), pairs.map(([, scope]) => scope)];
}
