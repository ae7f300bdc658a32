import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantSql } from '../../src/database/sql/tenant-sql.js';
import {
  IdempotencyRepository,
  type IdempotencyScope,
} from '../../src/idempotency/idempotency.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';
import { insertApp } from '../support/tenant-rows.js';

describe('Idempotency-Keys, two tenants', () => {
  let r: RepositoryDatabase;
  const keys = new IdempotencyRepository();
  /** The same scope in both tenants: tenant B's app has tenant A's app id. */
  let scope: IdempotencyScope;
  const hashA = Buffer.alloc(32, 1);
  const hashB = Buffer.alloc(32, 2);

  beforeAll(async () => {
    r = await repositoryDatabase();
    const app = await insertApp(r.inspect, r.tenantA);
    await insertApp(r.inspect, r.tenantB, { id: app });
    scope = { appId: app, method: 'POST', path: '/v1/orders', key: 'k-1' };
  });
  afterAll(() => r.close());

  const inTenant = <T>(tenantId: number, work: (db: TenantSql) => Promise<T>) =>
    r.transactions.run((db) => work(db.tenant(tenantId)));
  const response = (body: unknown) => ({ status: 201, headers: { location: '/x' }, body });

  it('save and find: the tenant’s stored response under the scope, not the other tenant’s', async () => {
    await inTenant(r.tenantB, (db) => keys.save(db, scope, hashB, response({ tenant: 'B' }), 24));
    expect(await inTenant(r.tenantA, (db) => keys.find(db, scope))).toBeUndefined();
    // The same scope in tenant A is its own key: no conflict with tenant B's.
    await inTenant(r.tenantA, (db) => keys.save(db, scope, hashA, response({ tenant: 'A' }), 24));
    const found = await inTenant(r.tenantA, (db) => keys.find(db, scope));
    expect(found).toEqual({
      requestHash: hashA,
      status: 201,
      headers: { location: '/x' },
      body: { tenant: 'A' },
    });
    await expect(
      inTenant(r.tenantA, (db) => keys.save(db, scope, hashA, response({}), 24)),
    ).rejects.toMatchObject({ code: '23505' });
  });

  it('find: drops the tenant’s expired response only', async () => {
    const expired = { ...scope, key: 'k-expired' };
    for (const tenantId of [r.tenantA, r.tenantB]) {
      await inTenant(tenantId, (db) => keys.save(db, expired, hashA, response({}), 24));
    }
    await r.inspect.query(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'k-expired'`,
    );
    expect(await inTenant(r.tenantA, (db) => keys.find(db, expired))).toBeUndefined();
    const left = await r.inspect.query<Array<{ tenant_id: number }>>(
      `SELECT tenant_id FROM idempotency_keys WHERE key = 'k-expired'`,
    );
    expect(left).toEqual([{ tenant_id: r.tenantB }]);
  });

  it('tryLock: one holder per key in a tenant; the same key of another tenant is another lock', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: (held: boolean) => void;
    const holding = new Promise<boolean>((resolve) => (locked = resolve));
    const holder = inTenant(r.tenantA, async (db) => {
      locked(await keys.tryLock(db, scope));
      await released;
    });
    try {
      expect(await holding).toBe(true);
      expect(await inTenant(r.tenantA, (db) => keys.tryLock(db, scope))).toBe(false);
      expect(await inTenant(r.tenantB, (db) => keys.tryLock(db, scope))).toBe(true);
      expect(await inTenant(r.tenantA, (db) => keys.tryLock(db, { ...scope, key: 'k-2' }))).toBe(
        true,
      );
    } finally {
      release();
      await holder;
    }
    expect(await inTenant(r.tenantA, (db) => keys.tryLock(db, scope))).toBe(true);
  });
});
