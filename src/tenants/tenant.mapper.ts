import type { TenantRow } from './tenants.repository.js';

/** A tenant as the admin CLI prints it (`--json`). */
export type TenantView = {
  id: number;
  name: string;
  currency: string;
  created_at: string;
};

export function toTenantView(tenant: TenantRow): TenantView {
  return {
    id: tenant.id,
    name: tenant.name,
    currency: tenant.currency,
    created_at: tenant.createdAt.toISOString(),
  };
}
