import { describe, expect, it } from 'vitest';
import type { OrderListSpec } from './order-list-query.js';
import { orderCountSql, orderListSql, orderMatchesUpToSql } from './order-list.sql.js';
import type { OrderScope } from './order-scope.js';

const customer: OrderScope = { kind: 'customer', customerId: 5 };
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

/** The highest placeholder a statement uses. */
function highestPlaceholder(text: string): number {
  return Math.max(...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
}

describe('order list SQL', () => {
  it("starts every arm and the count with the scope's conditions, the tenant as $1", () => {
    const list = orderListSql(customer, everything, 'id', { limit: 10, offset: 0 });
    const arms = list.text.split('UNION ALL');
    expect(arms).toHaveLength(2);
    for (const arm of arms) expect(arm).toMatch(/WHERE tenant_id = \$1 AND customer_id = \$2 AND /);
    expect(list.text).toContain('o.tenant_id = $1 AND o.id = page.id');
    expect(list.params[0]).toBe(5);
    // The customer_id filter is an extra condition: another customer's id selects nothing.
    expect(list.text).toContain('customer_id = $5::bigint');
    expect(list.params[3]).toBe(6);
    const count = orderCountSql(customer, everything);
    expect(count.text).toMatch(/WHERE tenant_id = \$1 AND customer_id = \$2 AND /);
    expect(count.text).not.toContain('(updated_at, id) >');
    expect(count.text).toContain('updated_at < $');
  });

  it('leaves $1 to the tenant path: the values given are exactly $2 onwards', () => {
    const tenant: OrderScope = { kind: 'tenant' };
    const ranged: OrderListSpec = {
      sort: '-updated_at',
      filters: { status: ['paid'], created_after: '2026-01-01T00:00:00.000000Z' },
    };
    const statements = [
      orderListSql(customer, everything, 'id', { limit: 10, offset: 0 }),
      orderListSql(tenant, ranged, 'id', { limit: 10, offset: 5, rangeFirst: true }),
      orderListSql(tenant, ranged, 'id', { limit: 10, offset: 0 }, orderCountSql(tenant, ranged)),
      orderCountSql(tenant, { sort: 'created_at', filters: {}, horizon: everything.horizon }),
      orderCountSql(tenant, ranged),
      orderMatchesUpToSql(tenant, ranged, 5),
    ];
    for (const { text, params } of statements) {
      expect(text).toMatch(/tenant_id = \$1(?!\d)/);
      expect(highestPlaceholder(text)).toBe(params.length + 1);
    }
  });

  it('walks in the direction of the sort, and bounds ascending walks by the horizon', () => {
    const tenant: OrderScope = { kind: 'tenant' };
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
});
