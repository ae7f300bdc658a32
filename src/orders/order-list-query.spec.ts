import { describe, expect, it } from 'vitest';
import { orderCountSql, orderListSql, type OrderListSpec } from './order-list-query.js';
import type { OrderScope } from './order-scope.js';

const customer: OrderScope = { kind: 'customer', tenantId: 3, customerId: 5 };
const everything: OrderListSpec = {
  sort: 'updated_at',
  filters: {
    status: ['paid', 'shipped'],
    created_after: '2026-01-01T00:00:00.000000Z',
    email: 'a@b.co',
    customer_id: 6,
    source: 'api',
  },
  after: { key: '2026-01-02T00:00:00.000000Z', id: 9 },
  horizon: '2026-01-03T00:00:00.000000Z',
};

describe('order list SQL', () => {
  it("starts every arm and the count with the scope's conditions", () => {
    const list = orderListSql(customer, everything, 'id', { limit: 10, offset: 0 });
    const arms = list.text.split('UNION ALL');
    expect(arms).toHaveLength(2);
    for (const arm of arms) expect(arm).toMatch(/WHERE tenant_id = \$1 AND customer_id = \$2 AND /);
    expect(list.params.slice(0, 2)).toEqual([3, 5]);
    // The customer_id filter is an extra condition: another customer's id selects nothing.
    expect(list.text).toContain('customer_id = $5::bigint');
    expect(list.params[4]).toBe(6);
    const count = orderCountSql(customer, everything);
    expect(count.text).toMatch(/WHERE tenant_id = \$1 AND customer_id = \$2 AND /);
    expect(count.text).not.toContain('(updated_at, id) >');
    expect(count.text).toContain('updated_at < $');
  });

  it('walks in the direction of the sort, and bounds ascending walks by the horizon', () => {
    const tenant: OrderScope = { kind: 'tenant', tenantId: 3 };
    const desc = orderListSql(
      tenant,
      { ...everything, sort: '-created_at', horizon: undefined },
      'id',
      { limit: 10, offset: 0 },
    );
    expect(desc.text).toContain('(created_at, id) < (');
    expect(desc.text).toContain('ORDER BY created_at DESC, id DESC');
    expect(desc.text).not.toContain('created_at < $');
    const asc = orderListSql(tenant, everything, 'id', { limit: 10, offset: 0 });
    expect(asc.text).toContain('(updated_at, id) > (');
    expect(asc.text).toContain('ORDER BY updated_at ASC, id ASC');
    expect(asc.text).toContain('updated_at < $');
  });

  it('refuses a scope without a tenant', () => {
    expect(() =>
      orderListSql({ kind: 'tenant', tenantId: 0 }, everything, 'id', { limit: 10, offset: 0 }),
    ).toThrow(/without a tenant/);
  });
});
