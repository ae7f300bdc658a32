import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportOrderDto } from '../../src/marketplace/dto/import-order.dto.js';
import { ImportsRepository, type ImportRow } from '../../src/marketplace/imports.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';
import { addOrder, insertApp } from '../support/tenant-rows.js';

describe('marketplace imports, two tenants', () => {
  let r: RepositoryDatabase;
  const imports = new ImportsRepository();
  let appA: number;
  let appB: number;

  const payload = (externalOrderId: string): ImportOrderDto => ({
    marketplace: 'etsy',
    external_order_id: externalOrderId,
    customer: { name: 'Ada', email: 'ada@example.com' },
    shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
    items: [{ sku: 'MUG', name: 'Mug', quantity: 1, unit_price: 5, total: 5 }],
  });

  beforeAll(async () => {
    r = await repositoryDatabase();
    appA = await insertApp(r.inspect, r.tenantA);
    appB = await insertApp(r.inspect, r.tenantB);
  });
  afterAll(() => r.close());

  const tenantA = () => r.transactions.db.tenant(r.tenantA);
  const tenantB = () => r.transactions.db.tenant(r.tenantB);
  const importsOfB = () =>
    r.inspect.query(
      `SELECT id, status, attempts, order_id, error, updated_at FROM marketplace_imports
       WHERE tenant_id = $1 ORDER BY id`,
      [r.tenantB],
    );

  /** One import of the same marketplace order in each tenant. */
  async function both(externalOrderId: string): Promise<{ a: ImportRow; b: ImportRow }> {
    const b = await imports.insert(tenantB(), appB, payload(externalOrderId));
    const a = await imports.insert(tenantA(), appA, payload(externalOrderId));
    return { a: a!, b: b! };
  }

  it('insert: the same marketplace order is new in each tenant, once per tenant', async () => {
    const { a, b } = await both('E-1');
    expect(a).toMatchObject({ tenant_id: r.tenantA, status: 'queued', app_id: appA });
    expect(b).toMatchObject({ tenant_id: r.tenantB, app_id: appB });
    expect(await imports.insert(tenantA(), appA, payload('E-1'))).toBeUndefined();
  });

  it('find: the tenant’s import of that marketplace order only', async () => {
    const { a } = await both('E-2');
    expect((await imports.find(tenantA(), 'etsy', 'E-2'))?.id).toBe(a.id);
    await imports.insert(tenantB(), appB, payload('E-only-b'));
    expect(await imports.find(tenantA(), 'etsy', 'E-only-b')).toBeUndefined();
  });

  it('startAttempt, lock: the tenant’s import, never another tenant’s by its id', async () => {
    const { a, b } = await both('E-3');
    const before = await importsOfB();
    expect(await imports.startAttempt(tenantA(), b.id)).toBeUndefined();
    expect(
      await r.transactions.run((db) => imports.lock(db.tenant(r.tenantA), b.id)),
    ).toBeUndefined();
    expect(await importsOfB()).toEqual(before);
    expect(await imports.startAttempt(tenantA(), a.id)).toMatchObject({
      status: 'processing',
      attempts: 1,
    });
    expect((await r.transactions.run((db) => imports.lock(db.tenant(r.tenantA), a.id)))?.id).toBe(
      a.id,
    );
  });

  it('markImported: marks the tenant’s import only', async () => {
    const { a, b } = await both('E-4');
    const orderA = await addOrder(r.inspect, r.tenantA);
    const before = await importsOfB();
    await imports.markImported(tenantA(), b.id, orderA);
    expect(await importsOfB()).toEqual(before);
    await imports.markImported(tenantA(), a.id, orderA);
    expect(await imports.find(tenantA(), 'etsy', 'E-4')).toMatchObject({
      status: 'imported',
      order_id: orderA,
    });
  });

  it('markAttemptFailed: fails the tenant’s import only', async () => {
    const { a, b } = await both('E-5');
    const before = await importsOfB();
    expect(await imports.markAttemptFailed(tenantA(), b.id, 'boom', true)).toBeUndefined();
    expect(await importsOfB()).toEqual(before);
    expect(await imports.markAttemptFailed(tenantA(), a.id, 'boom', false)).toMatchObject({
      status: 'queued',
      error: 'boom',
    });
    expect(await imports.markAttemptFailed(tenantA(), a.id, 'boom again', true)).toMatchObject({
      status: 'failed',
      error: 'boom again',
    });
  });
});
