import type { ProductInput } from '../../src/products/product-input.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProductsRepository } from '../../src/products/products.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';

describe('products repository, two tenants', () => {
  let r: RepositoryDatabase;
  const products = new ProductsRepository();
  let firstA: number;
  let firstB: number;

  async function arrange(tenantId: number, sku: string, price = 100): Promise<number> {
    const [{ id }]: Array<{ id: number }> = await r.inspect.query(
      `INSERT INTO products (tenant_id, sku, name, price_minor) VALUES ($1, $2, $2, $3) RETURNING id`,
      [tenantId, sku, price],
    );
    return id;
  }

  const catalogOf = async (tenantId: number) =>
    (await r.inspect.query(
      'SELECT sku, name, price_minor, active FROM products WHERE tenant_id = $1 ORDER BY sku',
      [tenantId],
    )) as Array<Record<string, unknown>>;

  beforeAll(async () => {
    r = await repositoryDatabase();
  });
  afterAll(() => r.close());
  beforeEach(async () => {
    await r.inspect.query('TRUNCATE products CASCADE');
    // Both tenants hold the same skus; B has more products than A.
    firstA = await arrange(r.tenantA, 'MUG', 1250);
    await arrange(r.tenantA, 'CAP');
    firstB = await arrange(r.tenantB, 'MUG', 999);
    await arrange(r.tenantB, 'CAP');
    await arrange(r.tenantB, 'HAT');
  });

  it("list: the bound tenant's products in its currency, counted alone", async () => {
    const db = r.transactions.db.tenant(r.tenantA);
    const page = await products.list(db, { filters: {}, limit: 1, offset: 0 }, true);
    expect(page).toEqual({
      rows: [
        {
          id: firstA,
          sku: 'MUG',
          name: 'MUG',
          price_minor: 1250,
          currency: 'EUR',
          active: true,
          inventory_tracked: false,
          available: 0,
          version: 1,
          created_at: expect.any(Date),
          updated_at: expect.any(Date),
        },
        expect.objectContaining({ sku: 'CAP' }),
      ],
      total: 2,
    });
    const second = await products.list(db, { filters: {}, limit: 5, offset: 5 }, true);
    expect(second).toEqual({ rows: [], total: 2 });
    const bySku = await products.list(db, { filters: { sku: 'CAP' }, limit: 5, offset: 0 }, true);
    expect(bySku.rows.map((p) => p.sku)).toEqual(['CAP']);
    expect(bySku.total).toBe(1);
  });

  it("find: the bound tenant's product; another tenant's id finds nothing", async () => {
    const db = r.transactions.db.tenant(r.tenantA);
    expect(await products.find(db, firstA)).toMatchObject({ id: firstA, currency: 'EUR' });
    expect(await products.find(db, firstB)).toBeUndefined();
  });

  it('insert: into the bound tenant; a sku taken there (not elsewhere) inserts nothing', async () => {
    const before = await catalogOf(r.tenantB);
    const created = await r.transactions.run((db) =>
      products.insert(db.tenant(r.tenantA), { sku: 'HAT', name: 'Hat', priceMinor: 700 }),
    );
    expect(created).toMatchObject({ sku: 'HAT', price_minor: 700, currency: 'EUR', active: true });
    const taken = await r.transactions.run((db) =>
      products.insert(db.tenant(r.tenantA), { sku: 'MUG', name: 'Other', priceMinor: 1 }),
    );
    expect(taken).toBeUndefined();
    expect((await catalogOf(r.tenantA)).map((p) => p.sku)).toEqual(['CAP', 'HAT', 'MUG']);
    expect(await catalogOf(r.tenantB)).toEqual(before);
  });

  it("upsert: inserts and updates by sku in the bound tenant (locked ones only); the other's same skus untouched", async () => {
    const before = await catalogOf(r.tenantB);
    await r.inspect.query('UPDATE products SET active = false WHERE tenant_id = $1', [r.tenantA]);
    const upsert = (rows: ProductInput[], hasActiveColumn: boolean) =>
      r.transactions.run(async (db) => {
        const tenant = db.tenant(r.tenantA);
        const locked = await products.lockBySku(
          tenant,
          rows.map((row) => row.sku),
        );
        const ids = [...locked.values()].map((p) => p.id);
        return products.upsert(tenant, rows, hasActiveColumn, ids);
      });
    const written = await upsert(
      [
        { sku: 'MUG', name: 'Mug', priceMinor: 1300 },
        { sku: 'HAT', name: 'Hat', priceMinor: 700 },
      ],
      false,
    );
    // Per product written, in id order: the row after, and whether it was inserted.
    expect(written.map((w) => [w.product.sku, w.inserted, w.product.version])).toEqual([
      ['MUG', false, 2],
      ['HAT', true, 1],
    ]);
    expect(await catalogOf(r.tenantA)).toEqual([
      { sku: 'CAP', name: 'CAP', price_minor: 100, active: false },
      // Without an active column existing products keep their state; new ones are active.
      { sku: 'HAT', name: 'Hat', price_minor: 700, active: true },
      { sku: 'MUG', name: 'Mug', price_minor: 1300, active: false },
    ]);
    const activated = await upsert(
      [
        { sku: 'MUG', name: 'Mug', priceMinor: 1300, active: true, stock: 4 },
        { sku: 'HAT', name: 'Hat', priceMinor: 700 },
      ],
      true,
    );
    // HAT changes nothing: left alone, not returned, no new version.
    expect(activated.map((w) => w.product)).toEqual([
      expect.objectContaining({ sku: 'MUG', active: true, inventory_tracked: true, available: 4 }),
    ]);
    expect((await catalogOf(r.tenantA)).find((p) => p.sku === 'MUG')?.active).toBe(true);
    // A product not locked by the caller (created by another writer meanwhile) is not updated.
    const unlocked = await r.transactions.run((db) =>
      products.upsert(
        db.tenant(r.tenantA),
        [{ sku: 'CAP', name: 'Cap!', priceMinor: 1 }],
        true,
        [],
      ),
    );
    expect(unlocked).toEqual([]);
    expect(await catalogOf(r.tenantB)).toEqual(before);
  });
});
