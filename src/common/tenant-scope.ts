/**
 * Repositories call this first: a query without a real tenant must not run (TypeORM drops
 * `undefined` from a where clause, which would read across tenants).
 */
export function requireTenant(tenantId: number): void {
  if (!Number.isSafeInteger(tenantId) || tenantId < 1) {
    throw new Error(`refusing a tenant-scoped query without a tenant (got ${String(tenantId)})`);
  }
}
