import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantSql } from '../../src/database/sql/tenant-sql.js';
import type { OrderDraft } from '../../src/orders/order-draft.js';
import { OrderCatalogRepository } from '../../src/orders/order-catalog.repository.js';
import { WHOLE_TENANT_SCOPE } from '../../src/orders/order-scope.js';
import { OrdersRepository } from '../../src/orders/orders.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';
import { addOrder, addProduct, insertCustomer } from '../support/tenant-rows.js';

describe('orders and the catalog as orders read it, two tenants', () => {
  let r: RepositoryDatabase;
  const orders = new OrdersRepository();
  const catalog = new OrderCatalogRepository();
  /** Per tenant: a product, a verified customer and orders of both kinds. */
  const a = { product: 0, customer: 0, own: 0, guest: 0, imported: 0 };
  const b = { ...a };

  beforeAll(async () => {
    r = await repositoryDatabase();
    for (const [rows, tenantId] of [
      [a, r.tenantA],
      [b, r.tenantB],
    ] as const) {
      rows.product = await addProduct(r.inspect, tenantId, 'MUG');
      rows.customer = await insertCustomer(r.inspect, tenantId, 'ada@example.com', {
        verified: true,
      });
      rows.own = await addOrder(r.inspect, tenantId, {
        customerId: rows.customer,
        productId: rows.product,
      });
      rows.guest = await addOrder(r.inspect, tenantId, { email: 'guest@example.com' });
      rows.imported = await addOrder(r.inspect, tenantId, {
        marketplace: 'etsy',
        externalOrderId: 'E-1',
      });
    }
  });
  afterAll(() => r.close());

  const read = <T>(work: (tenant: TenantSql) => Promise<T>) =>
    r.transactions.run((db) => work(db.tenant(r.tenantA)));
  const tenantA = () => r.transactions.db.tenant(r.tenantA);

  /** The orders of tenant B as they are, to compare before and after. */
  const tenantBOrders = () =>
    r.inspect.query(
      `SELECT id, status, customer_id, updated_at FROM orders WHERE tenant_id = $1 ORDER BY id`,
      [r.tenantB],
    );

  it('exists: the tenant’s orders, a customer’s own only, never another tenant’s', async () => {
    await read(async (db) => {
      expect(await orders.exists(db, WHOLE_TENANT_SCOPE, a.own)).toBe(true);
      expect(await orders.exists(db, WHOLE_TENANT_SCOPE, a.guest)).toBe(true);
      expect(await orders.exists(db, WHOLE_TENANT_SCOPE, b.own)).toBe(false);
      expect(await orders.exists(db, WHOLE_TENANT_SCOPE, b.guest)).toBe(false);
      const ada = { kind: 'customer', customerId: a.customer } as const;
      expect(await orders.exists(db, ada, a.own)).toBe(true);
      expect(await orders.exists(db, ada, a.guest)).toBe(false);
      // Tenant B's customer id names nobody of tenant A.
      const bob = { kind: 'customer', customerId: b.customer } as const;
      expect(await orders.exists(db, bob, b.own)).toBe(false);
    });
  });

  it('findWithItems: the order with its lines, within the tenant and the customer', async () => {
    const db = tenantA();
    const found = await orders.findWithItems(db, WHOLE_TENANT_SCOPE, a.own);
    expect(found?.items).toEqual([
      expect.objectContaining({ order_id: a.own, product_id: a.product }),
    ]);
    expect(await orders.findWithItems(db, WHOLE_TENANT_SCOPE, b.own)).toBeUndefined();
    const ada = { kind: 'customer', customerId: a.customer } as const;
    expect((await orders.findWithItems(db, ada, a.own))?.id).toBe(a.own);
    expect(await orders.findWithItems(db, ada, a.guest)).toBeUndefined();
    expect(
      await orders.findWithItems(db, { kind: 'customer', customerId: b.customer }, b.own),
    ).toBeUndefined();
  });

  it('idByExternalId: the tenant’s import of that marketplace order, not another tenant’s', async () => {
    const db = tenantA();
    expect(await orders.idByExternalId(db, 'etsy', 'E-1')).toBe(a.imported);
    expect(await orders.idByExternalId(db, 'etsy', 'E-2')).toBeUndefined();
  });

  const draft = (link: OrderDraft['link']): OrderDraft => ({
    customer: { name: 'Ada', email: 'ada@example.com' },
    link,
    shipping: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
    lines: [
      {
        productId: a.product,
        sku: 'MUG',
        name: 'Mug',
        quantity: 2,
        unitPriceMinor: 300,
        totalMinor: 600,
      },
    ],
    totalMinor: 600,
    source: 'api',
    appId: null,
  });

  it('insert: the order and its lines in the tenant, its customer found in the tenant only', async () => {
    const before = await tenantBOrders();
    const written = await read((db) =>
      orders.insert(db, draft({ kind: 'email', email: 'ADA@example.com' })),
    );
    expect(written?.order).toMatchObject({
      currency: 'EUR',
      customer_id: a.customer,
      total_minor: 600,
    });
    expect(written?.items).toEqual([
      expect.objectContaining({ product_id: a.product, total_minor: 600 }),
    ]);
    const [stored] = await r.inspect.query<Array<{ tenant_id: number }>>(
      'SELECT tenant_id FROM orders WHERE id = $1',
      [written!.order.id],
    );
    expect(stored.tenant_id).toBe(r.tenantA);
    // Tenant B's customer, by id or by id-or-email, is nobody of tenant A.
    // (By id, no one linked: the writer answers 422 unknown_customer and rolls back.)
    const foreign = await read((db) => orders.insert(db, draft({ kind: 'id', id: b.customer })));
    expect(foreign?.order.customer_id).toBeNull();
    const fallback = await read((db) =>
      orders.insert(
        db,
        draft({ kind: 'id-or-email', id: b.customer, email: 'nobody@example.com' }),
      ),
    );
    expect(fallback?.order.customer_id).toBeNull();
    expect(await tenantBOrders()).toEqual(before);
  });

  it('lockWithItems and saveChange: the tenant’s order with its history, never another tenant’s', async () => {
    const before = await tenantBOrders();
    const locked = await read((db) => orders.lockWithItems(db, a.guest));
    expect(locked).toMatchObject({ id: a.guest, status: 'pending', version: 1 });
    expect(locked!.items).toHaveLength(1);
    expect(await read((db) => orders.lockWithItems(db, b.guest))).toBeUndefined();
    const saved = await read((db) =>
      orders.saveChange(
        db,
        { ...locked!, status: 'paid' },
        [],
        [{ from: 'pending', to: 'paid' }],
        'test',
      ),
    );
    expect(saved.version).toBe(2);
    const missed = await read((db) =>
      orders.saveChange(
        db,
        { ...locked!, id: b.guest, status: 'paid' },
        [],
        [{ from: 'pending', to: 'paid' }],
        'test',
      ),
    );
    expect(missed).toBeUndefined();
    expect(await tenantBOrders()).toEqual(before);
    const history = await r.inspect.query<Array<{ tenant_id: number; order_id: number }>>(
      'SELECT tenant_id, order_id FROM order_status_changes',
    );
    expect(history).toEqual([{ tenant_id: r.tenantA, order_id: a.guest }]);
  });

  it('linkToCustomer: links the tenant’s guest orders of that email only', async () => {
    const before = await tenantBOrders();
    const linked = await read((db) => orders.linkToCustomer(db, a.customer, 'GUEST@example.com'));
    expect(linked).toBe(1);
    const [row] = await r.inspect.query<Array<{ customer_id: number }>>(
      'SELECT customer_id FROM orders WHERE tenant_id = $1 AND id = $2',
      [r.tenantA, a.guest],
    );
    expect(row.customer_id).toBe(a.customer);
    expect(await tenantBOrders()).toEqual(before);
  });

  it('activeProducts and productsByIdOrSku: the tenant’s catalog only', async () => {
    const db = tenantA();
    const inactive = await addProduct(r.inspect, r.tenantA, 'OLD', { active: false });
    const active = await catalog.activeProducts(db, [a.product, b.product, inactive]);
    expect([...active.keys()]).toEqual([a.product]);
    expect(active.get(a.product)).toEqual({
      id: a.product,
      sku: 'MUG',
      name: 'Product MUG',
      price_minor: 1000,
      inventory_tracked: false,
    });
    const found = await catalog.productsByIdOrSku(db, [b.product, inactive], ['MUG', 'NONE']);
    expect(Object.fromEntries(found.bySku)).toEqual({ MUG: a.product, OLD: inactive });
    expect([...found.ids].sort((x, y) => x - y)).toEqual(
      [a.product, inactive].sort((x, y) => x - y),
    );
  });
});
