import type { App } from './app.entity.js';

/**
 * What anyone may see of an app (the admin CLI, its admin-action events): never the secret
 * or its hash, only its last four characters.
 */
export function toAppView(app: App): Record<string, unknown> {
  return {
    id: app.id,
    tenant_id: app.tenantId,
    name: app.name,
    client_id: app.clientId,
    approved_scopes: app.approvedScopes,
    active: app.active,
    secret_last4: app.secretLast4,
    created_at: app.createdAt.toISOString(),
  };
}
