import type { RequestContext } from '../auth/request-context.js';

/**
 * Whose orders of the tenant a query may touch: all of them (an app, an admin) or one
 * customer's. The tenant itself is the path's (TenantSql); a union, so the customer condition
 * cannot be left out by an optional field being unset.
 */
export type OrderScope = { kind: 'tenant' } | { kind: 'customer'; customerId: number };

/** Every order of the tenant. */
export const WHOLE_TENANT_SCOPE: OrderScope = { kind: 'tenant' };

export function orderScopeOf(ctx: RequestContext): OrderScope {
  return ctx.kind === 'customer'
    ? { kind: 'customer', customerId: ctx.customerId }
    : WHOLE_TENANT_SCOPE;
}
