import type { AppRow } from './apps.repository.js';

/**
 * What anyone may see of an app (the admin CLI, its admin-action events): never the secret
 * or its hash, only its last four characters.
 */
/** A type literal (not an interface), so it also passes as a plain JSON record. */
export type AppView = {
  id: number;
  tenant_id: number;
  name: string;
  client_id: string;
  approved_scopes: string[];
  active: boolean;
  secret_last4: string;
  created_at: string;
};

export function toAppView(app: AppRow): AppView {
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
