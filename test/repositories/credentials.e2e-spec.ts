import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialsRepository } from '../../src/auth/credentials.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';

/**
 * The credentials state: apps by id on the tenant path, everything a token or client_id names
 * before its tenant is known on the `credentials` cross-tenant path, which must see both
 * tenants.
 */
describe('credentials repository, two tenants', () => {
  let r: RepositoryDatabase;
  const credentials = new CredentialsRepository();
  let appA: { id: number; clientId: string };
  let appB: { id: number; clientId: string };
  let customerA: number;
  let customerB: number;

  async function arrangeApp(tenantId: number) {
    const clientId = `app_${randomUUID()}`;
    const [{ id }]: Array<{ id: number }> = await r.inspect.query(
      `INSERT INTO apps (tenant_id, name, client_id, secret_hash, secret_last4, approved_scopes)
       VALUES ($1, 'App', $2, '\\x0102', 'abcd', '{orders:read}') RETURNING id`,
      [tenantId, clientId],
    );
    return { id, clientId };
  }

  async function arrangeCustomer(tenantId: number) {
    const [{ id }]: Array<{ id: number }> = await r.inspect.query(
      `INSERT INTO customers (tenant_id, name, email, password_hash)
       VALUES ($1, 'Ada', 'ada@example.com', 'x') RETURNING id`,
      [tenantId],
    );
    return id;
  }

  /** A token (or session) revoked `revokedAgo` ago, or live; expiring in an hour unless said. */
  async function arrangeToken(
    tenantId: number,
    appId: number,
    revokedAgo: string | null,
    expiresIn = '1 hour',
  ) {
    const jti = randomUUID();
    await r.inspect.query(
      `INSERT INTO app_tokens (jti, tenant_id, app_id, scopes, credentials_version, issued_at, expires_at, revoked_at)
       VALUES ($1, $2, $3, '{}', 1, now() - interval '2 hours', now() + $4::interval,
               now() - $5::interval)`,
      [jti, tenantId, appId, expiresIn, revokedAgo],
    );
    return jti;
  }

  async function arrangeSession(
    tenantId: number,
    appId: number,
    customerId: number,
    revokedAgo: string | null,
  ) {
    const id = randomUUID();
    await r.inspect.query(
      `INSERT INTO customer_sessions (id, tenant_id, customer_id, app_id, scopes, expires_at, revoked_at)
       VALUES ($1, $2, $3, $4, '{}', now() + interval '1 hour', now() - $5::interval)`,
      [id, tenantId, customerId, appId, revokedAgo],
    );
    return id;
  }

  beforeAll(async () => {
    r = await repositoryDatabase();
    appA = await arrangeApp(r.tenantA);
    appB = await arrangeApp(r.tenantB);
    customerA = await arrangeCustomer(r.tenantA);
    customerB = await arrangeCustomer(r.tenantB);
  });
  afterAll(() => r.close());

  const cross = () => r.transactions.db.crossTenant('credentials');

  it("appById: the bound tenant's app, never another tenant's with that id", async () => {
    const app = await credentials.appById(r.transactions.db.tenant(r.tenantA), appA.id);
    expect(app).toEqual({
      id: appA.id,
      tenantId: r.tenantA,
      clientId: appA.clientId,
      active: true,
      credentialsVersion: 1,
      approvedScopes: ['orders:read'],
      secretHash: Buffer.from([1, 2]),
    });
    expect(await credentials.appById(r.transactions.db.tenant(r.tenantA), appB.id)).toBeUndefined();
  });

  it('appByClientId (credentials path): the app of either tenant', async () => {
    expect(await credentials.appByClientId(cross(), appA.clientId)).toMatchObject({
      id: appA.id,
      tenantId: r.tenantA,
    });
    expect(await credentials.appByClientId(cross(), appB.clientId)).toMatchObject({
      id: appB.id,
      tenantId: r.tenantB,
    });
    expect(await credentials.appByClientId(cross(), 'app_unknown')).toBeUndefined();
  });

  it('isTokenRevoked / isSessionRevoked (credentials path): in either tenant', async () => {
    const revokedA = await arrangeToken(r.tenantA, appA.id, '1 minute');
    const revokedB = await arrangeToken(r.tenantB, appB.id, '1 minute');
    const live = await arrangeToken(r.tenantB, appB.id, null);
    expect(await credentials.isTokenRevoked(cross(), revokedA)).toBe(true);
    expect(await credentials.isTokenRevoked(cross(), revokedB)).toBe(true);
    expect(await credentials.isTokenRevoked(cross(), live)).toBe(false);
    expect(await credentials.isTokenRevoked(cross(), randomUUID())).toBe(false);

    const sessionA = await arrangeSession(r.tenantA, appA.id, customerA, '1 minute');
    const sessionB = await arrangeSession(r.tenantB, appB.id, customerB, '1 minute');
    const liveSession = await arrangeSession(r.tenantA, appA.id, customerA, null);
    expect(await credentials.isSessionRevoked(cross(), sessionA)).toBe(true);
    expect(await credentials.isSessionRevoked(cross(), sessionB)).toBe(true);
    expect(await credentials.isSessionRevoked(cross(), liveSession)).toBe(false);
  });

  it('revokedTokens / revokedSessions (credentials path): every tenant, unexpired, since a time', async () => {
    await r.inspect.query('TRUNCATE app_tokens, customer_sessions');
    const oldA = await arrangeToken(r.tenantA, appA.id, '1 day');
    const newB = await arrangeToken(r.tenantB, appB.id, '1 second');
    await arrangeToken(r.tenantA, appA.id, null); // live
    await arrangeToken(r.tenantB, appB.id, '1 minute', '-1 minute'); // expired
    const sessionA = await arrangeSession(r.tenantA, appA.id, customerA, '1 day');
    const sessionB = await arrangeSession(r.tenantB, appB.id, customerB, '1 second');
    await arrangeSession(r.tenantB, appB.id, customerB, null);

    const ids = (rows: Array<{ id: string; expires_at: Date }>) => rows.map((t) => t.id).sort();
    expect(ids(await credentials.revokedTokens(cross(), null))).toEqual([oldA, newB].sort());
    const hourAgo = new Date(Date.now() - 3_600_000);
    expect(ids(await credentials.revokedTokens(cross(), hourAgo))).toEqual([newB]);
    expect(ids(await credentials.revokedSessions(cross(), null))).toEqual(
      [sessionA, sessionB].sort(),
    );
    expect(ids(await credentials.revokedSessions(cross(), hourAgo))).toEqual([sessionB]);
    const [token] = await credentials.revokedTokens(cross(), hourAgo);
    expect(token.expires_at).toBeInstanceOf(Date);
  });

  it("now: the database's clock", async () => {
    const now = await credentials.now(r.transactions.db.shared());
    expect(Math.abs(now.getTime() - Date.now())).toBeLessThan(60_000);
  });
});
