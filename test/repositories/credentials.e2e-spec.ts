import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppClientsRepository } from '../../src/auth/app-clients.repository.js';
import { CredentialsRepository } from '../../src/auth/credentials.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';

/**
 * The credentials state: apps and revocation checks on the tenant path (a token names its
 * tenant), a client_id's tenant and the revocations every instance loads on the `credentials`
 * cross-tenant path, which must see both tenants.
 */
describe('credentials repository, two tenants', () => {
  let r: RepositoryDatabase;
  const credentials = new CredentialsRepository();
  const clients = new AppClientsRepository();
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
    await r.transactions.run((db) => clients.register(db.tenant(tenantId), clientId));
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
  const tenant = (id: number) => r.transactions.db.tenant(id);

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

  it('the client directory (credentials path): the tenant of either app', async () => {
    expect(await clients.tenantOf(cross(), appA.clientId)).toBe(r.tenantA);
    expect(await clients.tenantOf(cross(), appB.clientId)).toBe(r.tenantB);
    expect(await clients.tenantOf(cross(), 'app_unknown')).toBeUndefined();
  });

  it('the client directory keeps a client_id unique across tenants', async () => {
    const register = r.transactions.run((db) =>
      clients.register(db.tenant(r.tenantB), appA.clientId),
    );
    await expect(register).rejects.toThrow(/app_clients_pkey/);
    expect(await clients.tenantOf(cross(), appA.clientId)).toBe(r.tenantA);
  });

  it("appByClientId: the bound tenant's app, never another tenant's client_id", async () => {
    expect(await credentials.appByClientId(tenant(r.tenantA), appA.clientId)).toMatchObject({
      id: appA.id,
      tenantId: r.tenantA,
    });
    expect(await credentials.appByClientId(tenant(r.tenantA), appB.clientId)).toBeUndefined();
    expect(await credentials.appByClientId(tenant(r.tenantA), 'app_unknown')).toBeUndefined();
  });

  it('isTokenRevoked / isSessionRevoked: in the bound tenant only', async () => {
    const revokedA = await arrangeToken(r.tenantA, appA.id, '1 minute');
    const revokedB = await arrangeToken(r.tenantB, appB.id, '1 minute');
    const live = await arrangeToken(r.tenantB, appB.id, null);
    expect(await credentials.isTokenRevoked(tenant(r.tenantA), revokedA)).toBe(true);
    expect(await credentials.isTokenRevoked(tenant(r.tenantB), revokedB)).toBe(true);
    expect(await credentials.isTokenRevoked(tenant(r.tenantA), revokedB)).toBe(false);
    expect(await credentials.isTokenRevoked(tenant(r.tenantB), live)).toBe(false);
    expect(await credentials.isTokenRevoked(tenant(r.tenantA), randomUUID())).toBe(false);

    const sessionA = await arrangeSession(r.tenantA, appA.id, customerA, '1 minute');
    const sessionB = await arrangeSession(r.tenantB, appB.id, customerB, '1 minute');
    const liveSession = await arrangeSession(r.tenantA, appA.id, customerA, null);
    expect(await credentials.isSessionRevoked(tenant(r.tenantA), sessionA)).toBe(true);
    expect(await credentials.isSessionRevoked(tenant(r.tenantB), sessionB)).toBe(true);
    expect(await credentials.isSessionRevoked(tenant(r.tenantA), sessionB)).toBe(false);
    expect(await credentials.isSessionRevoked(tenant(r.tenantA), liveSession)).toBe(false);
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
