import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantsRepository } from '../../src/tenants/tenants.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';

/** The tenants table is no tenant's: the shared path reads and writes it whole. */
describe('tenants repository', () => {
  let r: RepositoryDatabase;
  const tenants = new TenantsRepository();

  beforeAll(async () => {
    r = await repositoryDatabase();
  });
  afterAll(() => r.close());

  it('insert: a new tenant, the others unchanged', async () => {
    const row = await r.transactions.run((db) =>
      tenants.insert(db.shared(), { name: 'Tenant C', currency: 'GBP' }),
    );
    expect(row).toMatchObject({ name: 'Tenant C', currency: 'GBP' });
    expect(row.id).toBeGreaterThan(r.tenantB);
    expect(row.createdAt).toBeInstanceOf(Date);
    const names: Array<{ name: string }> = await r.inspect.query(
      'SELECT name FROM tenants ORDER BY id',
    );
    expect(names.map((t) => t.name)).toEqual(['Tenant A', 'Tenant B', 'Tenant C']);
  });

  it('list: every tenant, by id', async () => {
    const rows = await tenants.list(r.transactions.db.shared());
    expect(rows.slice(0, 2).map((t) => [t.id, t.name, t.currency])).toEqual([
      [r.tenantA, 'Tenant A', 'EUR'],
      [r.tenantB, 'Tenant B', 'USD'],
    ]);
  });

  it('find: one tenant by id, or nothing', async () => {
    const db = r.transactions.db.shared();
    expect(await tenants.find(db, r.tenantB)).toMatchObject({ id: r.tenantB, currency: 'USD' });
    expect(await tenants.find(db, 999_999)).toBeUndefined();
  });
});
