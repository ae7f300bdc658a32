/** The document's tags, in the order /docs shows them. */
export const TAGS = [
  {
    name: 'oauth',
    description: 'App tokens (OAuth 2.0 client credentials), the signing keys and issuer metadata',
  },
  { name: 'products', description: 'The tenant’s catalog, read-only' },
  {
    name: 'orders',
    description: 'Create, list and read orders, change their status, read their timeline',
  },
  {
    name: 'customers',
    description:
      'Customer accounts: registration and login through an app, then the customer’s own session',
  },
  {
    name: 'marketplace',
    description: 'Orders imported from external marketplaces, processed in the background',
  },
  { name: 'events', description: 'The change feed: every change, in commit order, with cursors' },
  {
    name: 'webhooks',
    description: 'Webhook endpoints and their deliveries (Standard Webhooks signatures)',
  },
  { name: 'operations', description: 'Health checks and metrics for operators' },
] as const;
