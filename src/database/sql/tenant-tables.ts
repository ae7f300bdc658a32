/**
 * Tables whose rows belong to one tenant (they have a `tenant_id` column). A statement that
 * names one of them runs only through the tenant path (TenantSql) or a named cross-tenant
 * path (CrossTenantSql); the statement audit refuses any other. A test compares this list
 * with the schema, so a new tenant table cannot be left out.
 */
export const TENANT_TABLES = [
  'apps',
  'app_clients',
  'app_tokens',
  'audit_log',
  'customers',
  'customer_refresh_chains',
  'customer_refresh_tokens',
  'customer_sessions',
  'customer_tickets',
  'events',
  'event_purges',
  'fulfillments',
  'idempotency_keys',
  'import_lanes',
  'marketplace_imports',
  'order_count_deltas',
  'order_counts',
  'order_items',
  'order_status_changes',
  'orders',
  'products',
  'refunds',
  'webhook_deliveries',
  'webhook_endpoints',
] as const;

export type TenantTable = (typeof TENANT_TABLES)[number];
