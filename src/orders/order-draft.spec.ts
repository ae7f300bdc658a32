import { describe, expect, it } from 'vitest';
import { orderDraft, type OrderInput } from './order-draft.js';

const input = (customer: OrderInput['customer'], origin: OrderInput['origin']): OrderInput => ({
  customer,
  shipping: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
  lines: [
    { productId: 1, sku: 'A', name: 'Mug', quantity: 3, unitPriceMinor: 1250 },
    { productId: null, sku: 'B', name: 'Tea', quantity: 1, unitPriceMinor: 99 },
  ],
  origin,
  appId: 7,
});
const ada = { name: 'Ada', email: 'ada@example.com' };
const marketplace = { source: 'marketplace', marketplace: 'etsy', externalOrderId: 'E-1' } as const;

describe('one draft for the API and the marketplace import', () => {
  it('prices the lines exactly and keeps where the order came from', () => {
    const draft = orderDraft(input(ada, marketplace));
    expect(draft.lines.map((l) => l.totalMinor)).toEqual([3750, 99]);
    expect(draft.totalMinor).toBe(3849);
    expect(draft).toMatchObject({
      source: 'marketplace',
      marketplace: 'etsy',
      externalOrderId: 'E-1',
      appId: 7,
    });
    expect(orderDraft(input(ada, { source: 'api' }))).toMatchObject({
      source: 'api',
      marketplace: null,
      externalOrderId: null,
    });
  });

  it('links by id for the API, by id or else verified email for a marketplace, by email without an id', () => {
    expect(orderDraft(input({ ...ada, id: 4 }, { source: 'api' })).link).toEqual({
      kind: 'id',
      id: 4,
    });
    expect(orderDraft(input({ ...ada, id: 4 }, marketplace)).link).toEqual({
      kind: 'id-or-email',
      id: 4,
      email: 'ada@example.com',
    });
    for (const origin of [{ source: 'api' } as const, marketplace]) {
      expect(orderDraft(input(ada, origin)).link).toEqual({
        kind: 'email',
        email: 'ada@example.com',
      });
    }
  });
});
