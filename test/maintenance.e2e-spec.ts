import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialsState } from '../src/auth/credentials-state.service.js';
import {
  MAINTENANCE_CRON,
  MAINTENANCE_QUEUE,
  Maintenance,
} from '../src/maintenance/maintenance.service.js';
import { JobQueue } from '../src/queue/job-queue.service.js';
import { within } from './support/eventually.js';
import { newApp, newTenant, type TestClient } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** Issue 11 finding 12: expired rows are purged once per cluster, memory does not only grow. */
describe('maintenance', () => {
  let t: TestApp;
  let client: TestClient;
  let tenantId: number;

  beforeAll(async () => {
    t = await createTestApp();
    tenantId = (await newTenant(t)).id;
    client = await newApp(t, tenantId);
  });
  afterAll(() => t.close());

  const count = async (sql: string, params: unknown[] = []): Promise<number> => {
    const rows: Array<{ n: number }> = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM (${sql}) x`,
      params,
    );
    return rows[0].n;
  };

  async function insertToken(expiresAt: string, revoked = false): Promise<string> {
    const jti = randomUUID();
    await t.dataSource.query(
      `INSERT INTO app_tokens (jti, tenant_id, app_id, scopes, credentials_version, expires_at, revoked_at)
       VALUES ($1, $2, $3, '{}', 1, ${expiresAt}, ${revoked ? 'now()' : 'NULL'})`,
      [jti, tenantId, client.app.id],
    );
    return jti;
  }

  it('is scheduled through the job queue (one job per slot for the cluster), not a timer per process', async () => {
    const rows: Array<{ name: string; cron: string }> = await t.dataSource.query(
      'SELECT name, cron FROM pgboss.schedule WHERE name = $1',
      [MAINTENANCE_QUEUE],
    );
    expect(rows).toEqual([{ name: MAINTENANCE_QUEUE, cron: MAINTENANCE_CRON }]);
  });

  it('a maintenance job deletes expired tokens, sessions, keys and rate-limit windows; live ones stay', async () => {
    const expired = await insertToken("now() - interval '2 hours'");
    const live = await insertToken("now() + interval '1 hour'");
    await t.dataSource.query(
      `INSERT INTO rate_limits (key, points, expire) VALUES ('old', 1, 1), ('new', 1, $1)`,
      [Date.now() + 60_000],
    );
    // Through pg-boss, as the schedule sends it: a worker of this process takes the job.
    await t.app.get(JobQueue).boss.send(MAINTENANCE_QUEUE, {});
    await within(
      10_000,
      async () => (await count('SELECT 1 FROM app_tokens WHERE jti = $1', [expired])) === 0,
    );
    expect(await count('SELECT 1 FROM app_tokens WHERE jti = $1', [live])).toBe(1);
    await within(
      1_000,
      async () => (await count("SELECT 1 FROM rate_limits WHERE key = 'old'")) === 0,
    );
    expect(await count("SELECT 1 FROM rate_limits WHERE key = 'new'")).toBe(1);
  });

  it('reports what it purged, table by table', async () => {
    await insertToken("now() - interval '3 hours'");
    const counts = await t.app.get(Maintenance).purgeExpired();
    expect(counts).toMatchObject({
      app_tokens: 1,
      customer_sessions: expect.any(Number),
      idempotency_keys: expect.any(Number),
      rate_limits: expect.any(Number),
    });
  });

  it('revoked ids are forgotten in memory once their tokens expired', async () => {
    const state = t.app.get(CredentialsState);
    const jti = await insertToken("now() + interval '1 hour'", true);
    state.apply({ kind: 'token', jti, expiresAt: Date.now() + 3_600_000 });
    const before = state.revokedCount.tokens;
    expect(await state.isTokenRevoked(tenantId, jti)).toBe(true);
    // It expired (longer ago than the leeway): the next reload drops it.
    await t.dataSource.query(
      `UPDATE app_tokens SET expires_at = now() - interval '2 hours' WHERE jti = $1`,
      [jti],
    );
    state.apply({ kind: 'token', jti, expiresAt: Date.now() - 3_600_000 });
    await state.refresh();
    expect(state.revokedCount.tokens).toBe(before - 1);
  });

  it('enters apps missing from the client directory (made by the release before it), which then get tokens', async () => {
    const old = await newApp(t, tenantId);
    // As the previous release made apps: no directory row.
    await t.dataSource.query('DELETE FROM app_clients WHERE client_id = $1', [old.clientId]);
    const token = () =>
      t.http.post('/builders/oauth/token').send({
        grant_type: 'client_credentials',
        client_id: old.clientId,
        client_secret: old.clientSecret,
        scope: 'orders:read',
      });
    expect((await token()).status).toBe(401);

    const counts = await t.app.get(Maintenance).purgeExpired();
    expect(counts.directory_backfilled).toBe(1);
    expect(await count('SELECT 1 FROM app_clients WHERE client_id = $1', [old.clientId])).toBe(1);
    expect((await token()).status).toBe(200);
    expect((await t.app.get(Maintenance).purgeExpired()).directory_backfilled).toBe(0);
  });
});

describe('credentials listener', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('a half-open LISTEN connection (no answer, no close) is noticed by the heartbeat and replaced', async () => {
    const state = t.app.get(CredentialsState);
    const internals = state as unknown as {
      listener?: { connection: { stream: { pause(): void } } };
    };
    const silenced = internals.listener!;
    expect(state.cacheTrusted).toBe(true);
    // The socket stays open but nothing it receives is read: what a dead peer looks like.
    silenced.connection.stream.pause();
    await state.heartbeat();
    expect(state.cacheTrusted).toBe(false);
    await within(5_000, async () => state.cacheTrusted && internals.listener !== silenced);
  });
});
