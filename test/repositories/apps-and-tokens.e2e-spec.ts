import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppsRepository } from '../../src/apps/apps.repository.js';
import { AppTokensRepository } from '../../src/auth/app-tokens.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';

describe('apps and app tokens repositories, two tenants', () => {
  let r: RepositoryDatabase;
  const apps = new AppsRepository();
  const tokens = new AppTokensRepository();
  /** One app in each tenant, arranged afresh for every test. */
  let appA: { id: number; clientId: string };
  let appB: { id: number; clientId: string };

  async function arrangeApp(tenantId: number, name: string) {
    const clientId = `app_${randomUUID()}`;
    const [{ id }]: Array<{ id: number }> = await r.inspect.query(
      `INSERT INTO apps (tenant_id, name, client_id, secret_hash, secret_last4, approved_scopes)
       VALUES ($1, $2, $3, '\\x00', 'abcd', '{orders:read}') RETURNING id`,
      [tenantId, name, clientId],
    );
    return { id, clientId };
  }

  async function arrangeToken(tenantId: number, appId: number, revoked = false) {
    const jti = randomUUID();
    await r.inspect.query(
      `INSERT INTO app_tokens (jti, tenant_id, app_id, scopes, credentials_version, expires_at, revoked_at)
       VALUES ($1, $2, $3, '{orders:read}', 1, now() + interval '1 hour',
               CASE WHEN $4 THEN now() - interval '1 minute' END)`,
      [jti, tenantId, appId, revoked],
    );
    return jti;
  }

  const appsOf = async (tenantId: number) =>
    (await r.inspect.query(
      'SELECT id, name, secret_last4, active, credentials_version FROM apps WHERE tenant_id = $1 ORDER BY id',
      [tenantId],
    )) as Array<Record<string, unknown>>;

  beforeAll(async () => {
    r = await repositoryDatabase();
  });
  afterAll(() => r.close());
  beforeEach(async () => {
    await r.inspect.query('TRUNCATE apps CASCADE');
    appA = await arrangeApp(r.tenantA, 'A app');
    appB = await arrangeApp(r.tenantB, 'B app');
  });

  describe('AppsRepository', () => {
    it('insert: writes the app into the bound tenant', async () => {
      const before = await appsOf(r.tenantB);
      const row = await r.transactions.run((db) =>
        apps.insert(db.tenant(r.tenantA), {
          name: 'New',
          clientId: 'app_new',
          secretHash: Buffer.from('hash'),
          secretLast4: 'wxyz',
          approvedScopes: ['orders:read', 'orders:write'],
        }),
      );
      expect(row).toMatchObject({
        tenantId: r.tenantA,
        name: 'New',
        clientId: 'app_new',
        secretLast4: 'wxyz',
        approvedScopes: ['orders:read', 'orders:write'],
        active: true,
        credentialsVersion: 1,
      });
      expect(row.createdAt).toBeInstanceOf(Date);
      expect(row).not.toHaveProperty('secretHash');
      expect((await appsOf(r.tenantA)).map((a) => a.name)).toEqual(['A app', 'New']);
      expect(await appsOf(r.tenantB)).toEqual(before);
    });

    it("list: the bound tenant's apps only", async () => {
      const second = await arrangeApp(r.tenantA, 'A second');
      const rows = await apps.list(r.transactions.db.tenant(r.tenantA));
      expect(rows.map((a) => [a.tenantId, a.id])).toEqual([
        [r.tenantA, appA.id],
        [r.tenantA, second.id],
      ]);
    });

    it("lock: finds and locks the bound tenant's app, never another tenant's", async () => {
      await r.transactions.run(async (db) => {
        expect(await apps.lock(db.tenant(r.tenantA), appA.clientId)).toMatchObject({
          id: appA.id,
          tenantId: r.tenantA,
        });
        expect(await apps.lock(db.tenant(r.tenantA), appB.clientId)).toBeUndefined();
        // Held by this unit: another connection cannot take A's row, B's is free.
        const tryLock = (tenantId: number, id: number) =>
          r.inspect.query('SELECT 1 FROM apps WHERE tenant_id = $1 AND id = $2 FOR UPDATE NOWAIT', [
            tenantId,
            id,
          ]);
        await expect(tryLock(r.tenantA, appA.id)).rejects.toMatchObject({ code: '55P03' });
        await expect(tryLock(r.tenantB, appB.id)).resolves.toHaveLength(1);
      });
    });

    it("update: changes the bound tenant's app only, even given another tenant's id", async () => {
      const before = await appsOf(r.tenantB);
      const row = await r.transactions.run((db) =>
        apps.update(db.tenant(r.tenantA), appA.id, {
          secretLast4: 'zzzz',
          active: false,
          credentialsVersion: 2,
        }),
      );
      expect(row).toMatchObject({
        id: appA.id,
        secretLast4: 'zzzz',
        active: false,
        credentialsVersion: 2,
        approvedScopes: ['orders:read'],
      });
      const missing = await r.transactions.run((db) =>
        apps.update(db.tenant(r.tenantA), appB.id, { active: false }),
      );
      expect(missing).toBeUndefined();
      expect(await appsOf(r.tenantB)).toEqual(before);
    });
  });

  describe('AppTokensRepository', () => {
    const tokensOf = async (tenantId: number) =>
      (await r.inspect.query(
        'SELECT jti, app_id, revoked_at IS NOT NULL AS revoked FROM app_tokens WHERE tenant_id = $1 ORDER BY jti',
        [tenantId],
      )) as Array<Record<string, unknown>>;

    it('insert: records the token in the bound tenant', async () => {
      const before = await tokensOf(r.tenantB);
      const jti = randomUUID();
      const iat = Math.floor(Date.now() / 1000);
      await r.transactions.run((db) =>
        tokens.insert(db.tenant(r.tenantA), {
          jti,
          appId: appA.id,
          scopes: ['orders:read'],
          credentialsVersion: 1,
          issuedAt: iat,
          expiresAt: iat + 3600,
        }),
      );
      const rows: unknown[] = await r.inspect.query(
        `SELECT tenant_id, app_id, scopes, extract(epoch FROM expires_at - issued_at)::int AS ttl
         FROM app_tokens WHERE jti = $1`,
        [jti],
      );
      expect(rows).toEqual([
        { tenant_id: r.tenantA, app_id: appA.id, scopes: ['orders:read'], ttl: 3600 },
      ]);
      expect(await tokensOf(r.tenantB)).toEqual(before);
    });

    it("revoke: revokes the bound tenant's token once; another tenant's is untouched", async () => {
      const jtiA = await arrangeToken(r.tenantA, appA.id);
      const jtiB = await arrangeToken(r.tenantB, appB.id);
      const first = await r.transactions.run((db) => tokens.revoke(db.tenant(r.tenantA), jtiA));
      expect(first).toMatchObject({ appId: appA.id, clientId: appA.clientId, newly: true });
      expect(first!.revokedAt).toBeInstanceOf(Date);
      const again = await r.transactions.run((db) => tokens.revoke(db.tenant(r.tenantA), jtiA));
      expect(again).toMatchObject({ appId: appA.id, newly: false, revokedAt: first!.revokedAt });

      const across = await r.transactions.run((db) => tokens.revoke(db.tenant(r.tenantA), jtiB));
      expect(across).toBeUndefined();
      expect(await tokensOf(r.tenantB)).toEqual([{ jti: jtiB, app_id: appB.id, revoked: false }]);
    });

    it('tenantOf (credentials path): finds the tenant of a token of either tenant', async () => {
      const jtiA = await arrangeToken(r.tenantA, appA.id);
      const jtiB = await arrangeToken(r.tenantB, appB.id);
      const db = r.transactions.db.crossTenant('credentials');
      expect(await tokens.tenantOf(db, jtiA)).toBe(r.tenantA);
      expect(await tokens.tenantOf(db, jtiB)).toBe(r.tenantB);
      expect(await tokens.tenantOf(db, randomUUID())).toBeUndefined();
    });
  });
});
