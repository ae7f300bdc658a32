import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AppContext, CustomerContext, RequestContext } from '../auth/request-context.js';
import { orderScopeOf, type OrderScope } from './order-scope.js';

const base = {
  tenantId: 7,
  appId: 1,
  clientId: 'app_x',
  scopes: new Set<string>(),
  tokenId: 't',
  credentialsVersion: 1,
};

describe('order scopes fail closed', () => {
  it('a customer session is always scoped to its customer; an app to the whole tenant', () => {
    const customer: CustomerContext = { ...base, kind: 'customer', customerId: 42 };
    const app: AppContext = { ...base, kind: 'app' };
    expect(orderScopeOf(customer)).toEqual({ kind: 'customer', customerId: 42 });
    expect(orderScopeOf(app)).toEqual({ kind: 'tenant' });
  });

  it('does not compile a customer context without its customer, or a customer scope without one', () => {
    // @ts-expect-error customerId is required on a customer context
    const broken: RequestContext = { ...base, kind: 'customer' };
    // @ts-expect-error a customer scope must name the customer
    const scope: OrderScope = { kind: 'customer' };
    expectTypeOf<Extract<OrderScope, { kind: 'customer' }>['customerId']>().toEqualTypeOf<number>();
    expect([broken.kind, scope.kind]).toEqual(['customer', 'customer']);
  });
});
