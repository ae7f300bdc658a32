import type { RequestContext } from '../auth/request-context.js';
import { requireTenant } from '../common/tenant-scope.js';

/**
 * Whose orders a query may touch: the whole tenant (an app, an admin) or one customer of it.
 * A union, so the customer condition cannot be left out by an optional field being unset.
 */
export type OrderScope =
  { kind: 'tenant'; tenantId: number } | { kind: 'customer'; tenantId: number; customerId: number };

export function orderScopeOf(ctx: RequestContext): OrderScope {
  return ctx.kind === 'customer'
    ? { kind: 'customer', tenantId: ctx.tenantId, customerId: ctx.customerId }
    : { kind: 'tenant', tenantId: ctx.tenantId };
}

export function tenantScope(tenantId: number): OrderScope {
  return { kind: 'tenant', tenantId };
}

/**
 * The scope's conditions on `orders`, exhaustively (a customer scope always adds its
 * customer), with their values pushed onto `params`, on `alias`'s columns when given. Every
 * order query starts with these.
 */
export function scopeConditions(scope: OrderScope, params: unknown[], alias?: string): string[] {
  requireTenant(scope.tenantId);
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  const conditions = [`${column('tenant_id')} = $${params.push(scope.tenantId)}`];
  switch (scope.kind) {
    case 'tenant':
      break;
    case 'customer':
      conditions.push(`${column('customer_id')} = $${params.push(scope.customerId)}`);
      break;
  }
  return conditions;
}
