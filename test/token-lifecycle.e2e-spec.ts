import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppsService } from '../src/apps/apps.service.js';
import { within } from './support/eventually.js';
import { newApp, newTenant, TEST_ADMIN, tokenFor, type TestClient } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * docs/BEHAVIOUR.md#token-lifecycle: each admin action kills the affected tokens within 1 s; others
 * live on.
 */
describe('token lifecycle', () => {
  let t: TestApp;
  let apps: AppsService;
  let bystander: string;

  beforeAll(async () => {
    t = await createTestApp();
    apps = t.app.get(AppsService);
    const tenant = await newTenant(t);
    bystander = await tokenFor(t, await newApp(t, tenant.id, ['products:read']));
  });
  afterAll(() => t.close());

  const status = async (token: string) =>
    (await t.http.get('/v1/products').set('authorization', `Bearer ${token}`)).status;
  const requestToken = (c: TestClient, secret = c.clientSecret) =>
    t.http.post('/builders/oauth/token').send({
      grant_type: 'client_credentials',
      client_id: c.clientId,
      client_secret: secret,
      scope: 'products:read',
    });

  async function freshClient(): Promise<{ client: TestClient; token: string }> {
    const tenant = await newTenant(t);
    const client = await newApp(t, tenant.id, ['products:read', 'orders:read']);
    const token = await tokenFor(t, client, 'products:read');
    expect(await status(token)).toBe(200); // now cached as valid
    return { client, token };
  }

  async function expectDeadWithinOneSecond(token: string): Promise<void> {
    const elapsed = await within(1000, async () => (await status(token)) === 401);
    expect(elapsed).toBeLessThan(1000);
    expect(await status(bystander)).toBe(200);
  }

  it('revoking a token kills that token only', async () => {
    const { client, token } = await freshClient();
    const sibling = await tokenFor(t, client, 'products:read');
    const jti = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).jti as string;
    await apps.revokeToken(TEST_ADMIN, jti);
    await expectDeadWithinOneSecond(token);
    expect(await status(sibling)).toBe(200);
    const res = await t.http.get('/v1/products').set('authorization', `Bearer ${token}`);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
  });

  it('deactivating an app kills its tokens and its token requests get invalid_client; reactivating revives none', async () => {
    const { client, token } = await freshClient();
    await apps.setActive(TEST_ADMIN, client.clientId, false);
    await expectDeadWithinOneSecond(token);
    const denied = await requestToken(client);
    expect(denied.status).toBe(401);
    expect(denied.body.error).toBe('invalid_client');

    await apps.setActive(TEST_ADMIN, client.clientId, true);
    expect((await requestToken(client)).status).toBe(200);
    expect(await status(token)).toBe(401);
  });

  it('rotating the secret rejects the old secret at once and kills earlier tokens', async () => {
    const { client, token } = await freshClient();
    const { clientSecret } = await apps.rotateSecret(TEST_ADMIN, client.clientId);
    const old = await requestToken(client);
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_client');
    await expectDeadWithinOneSecond(token);
    const renewed = await requestToken(client, clientSecret);
    expect(renewed.status).toBe(200);
    expect(await status(renewed.body.access_token as string)).toBe(200);
  });

  it('changing approved scopes kills earlier tokens; new tokens follow the new scopes', async () => {
    const { client, token } = await freshClient();
    await apps.setScopes(TEST_ADMIN, client.clientId, 'products:read');
    await expectDeadWithinOneSecond(token);
    expect((await requestToken(client)).status).toBe(200);
    const refused = await t.http.post('/builders/oauth/token').send({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      scope: 'orders:read',
    });
    expect(refused.body.error).toBe('invalid_scope');
  });

  it('when the notification channel is lost, checks fall back to the database (no stale cache)', async () => {
    const { token } = await freshClient();
    const killed: unknown[] = await t.dataSource.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name = 'storefront-listener' AND datname = current_database()`,
    );
    expect(killed).toHaveLength(1);
    // A change that announces nothing: only a fallback to the database can see it.
    const jti = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).jti as string;
    await t.dataSource.query('UPDATE app_tokens SET revoked_at = now() WHERE jti = $1', [jti]);
    await expectDeadWithinOneSecond(token);
  });

  it('writes every admin action to the audit log, never a secret', async () => {
    const { client } = await freshClient();
    const { clientSecret } = await apps.rotateSecret(TEST_ADMIN, client.clientId);
    const rows: Array<{ action: string; details: string }> = await t.dataSource.query(
      `SELECT action, details::text FROM audit_log WHERE target_id = $1 ORDER BY id`,
      [client.clientId],
    );
    expect(rows.map((r) => r.action)).toEqual(['app.create', 'app.rotate_secret']);
    for (const row of rows) {
      expect(row.details).not.toContain(clientSecret);
      expect(row.details).not.toContain(client.clientSecret);
    }
  });
});
