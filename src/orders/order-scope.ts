import type { RequestContext } from '../auth/request-context.js';

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
