/**
 * The scopes an app can ask for: the oauth2 scheme of the OpenAPI document lists them, and
 * openapi-typescript does not carry security schemes into the types. Kept equal to the
 * service's list by app-scopes.spec.ts, so this directory needs nothing else of the service.
 */
export type AppScope =
  | 'orders:read'
  | 'orders:write'
  | 'marketplace:import'
  | 'products:read'
  | 'products:write'
  | 'customer:auth'
  | 'customer:manage'
  | 'customer:privacy'
  | 'customer:read'
  | 'order:read'
  | 'events:read'
  | 'webhooks:read'
  | 'webhooks:write';
