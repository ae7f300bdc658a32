import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventRetentionRepository } from '../../src/events/event-retention.repository.js';
import { ExpiredRowsRepository } from '../../src/maintenance/expired-rows.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';
import { insertApp, insertCustomer, insertEvent, insertSession } from '../support/tenant-rows.js';

/**
 * Maintenance's purges span tenants by design (the expired-rows-purge and event-retention
 * paths): the expired rows and old events of both tenants go, live ones of both stay.
 */
describe('expired rows and event retention repositories, two tenants', () => {
  let r: RepositoryDatabase;
  beforeAll(async () => {
    r = await repositoryDatabase();
  });
  afterAll(() => r.close());

  /** An expired row and a live one of each tenant table the purge knows, in `tenantId`. */
  async function arrange(tenantId: number): Promise<void> {
    const app = await insertApp(r.inspect, tenantId);
    const customer = await insertCustomer(r.inspect, tenantId, `${randomUUID()}@example.com`);
    for (const [expiresIn, key] of [
      ['-1 second', 'old'],
      ['1 hour', 'live'],
    ]) {
      await r.inspect.query(
        `INSERT INTO idempotency_keys
           (tenant_id, app_id, method, path, key, request_hash, response_status, response_body, expires_at)
         VALUES ($1, $2, 'POST', '/orders', $3, '\\x00', 201, '{}', now() + $4::interval)`,
        [tenantId, app, key, expiresIn],
      );
    }
    for (const expiresIn of ['-2 hours', '-30 minutes']) {
      await r.inspect.query(
        `INSERT INTO app_tokens (jti, tenant_id, app_id, scopes, credentials_version, expires_at)
         VALUES ($1, $2, $3, '{}', 1, now() + $4::interval)`,
        [randomUUID(), tenantId, app, expiresIn],
      );
      await insertSession(r.inspect, tenantId, customer, app, expiresIn);
    }
    for (const [expiresIn, usedAt] of [
      ['-1 second', null],
      ['1 hour', "now() - interval '2 days'"],
      ['1 hour', 'now()'],
    ]) {
      await r.inspect.query(
        `INSERT INTO customer_tickets (tenant_id, customer_id, type, token_hash, expires_at, used_at)
         VALUES ($1, $2, 'password_reset', $3, now() + $4::interval, ${usedAt ?? 'NULL'})`,
        [tenantId, customer, randomBytes(32), expiresIn],
      );
    }
  }

  /**
   * Refresh chains: one ended two hours ago, one past its idle end two hours ago, one live;
   * each with a token (which goes with its chain).
   */
  async function arrangeChains(tenantId: number): Promise<void> {
    const app = await insertApp(r.inspect, tenantId);
    const customer = await insertCustomer(r.inspect, tenantId, `${randomUUID()}@example.com`);
    for (const [ended, idle] of [
      ["now() - interval '2 hours'", "now() + interval '1 day'"],
      ['NULL', "now() - interval '2 hours'"],
      ['NULL', "now() + interval '1 day'"],
    ]) {
      const id = randomUUID();
      await r.inspect.query(
        `INSERT INTO customer_refresh_chains
           (tenant_id, id, customer_id, app_id, scopes, expires_at, idle_expires_at, ended_at)
         VALUES ($1, $2, $3, $4, '{}', now() + interval '30 days', ${idle}, ${ended})`,
        [tenantId, id, customer, app],
      );
      await r.inspect.query(
        `INSERT INTO customer_refresh_tokens (tenant_id, token_hash, chain_id) VALUES ($1, $2, $3)`,
        [tenantId, randomBytes(32), id],
      );
    }
  }

  const left = async (table: string) =>
    (
      await r.inspect.query<Array<{ tenant_id: number }>>(
        `SELECT tenant_id FROM ${table} ORDER BY tenant_id`,
      )
    ).map((row) => row.tenant_id);

  it("purges every tenant's expired rows and keeps the live ones of both", async () => {
    await arrange(r.tenantA);
    await arrange(r.tenantB);
    await arrangeChains(r.tenantA);
    await arrangeChains(r.tenantB);
    const counts = await new ExpiredRowsRepository().purgeTenantRows(
      r.transactions.db.crossTenant('expired-rows-purge'),
    );
    expect(counts).toEqual({
      idempotency_keys: 2,
      app_tokens: 2,
      customer_sessions: 2,
      customer_refresh_chains: 4,
      customer_tickets: 4,
    });
    const both = [r.tenantA, r.tenantB].sort((x, y) => x - y);
    for (const table of [
      'idempotency_keys',
      'app_tokens',
      'customer_sessions',
      'customer_refresh_chains',
      'customer_refresh_tokens',
      'customer_tickets',
    ]) {
      expect(await left(table)).toEqual(both);
    }
  });

  it('purges ended rate-limit windows (shared) and keeps running ones', async () => {
    await r.inspect.query(
      `INSERT INTO rate_limits (key, points, expire) VALUES
         ('ended', 1, (extract(epoch FROM now()) * 1000)::bigint - 1000),
         ('running', 1, (extract(epoch FROM now()) * 1000)::bigint + 60000)`,
    );
    expect(await new ExpiredRowsRepository().purgeRateLimits(r.transactions.db.shared())).toBe(1);
    const keys: Array<{ key: string }> = await r.inspect.query('SELECT key FROM rate_limits');
    expect(keys).toEqual([{ key: 'running' }]);
  });

  it("removes every tenant's events past the retention and marks each tenant's last one", async () => {
    const old = "now() - interval '40 days'";
    const oldA = [await insertEvent(r.inspect, r.tenantA, 'order.created', old)];
    const oldB = [
      await insertEvent(r.inspect, r.tenantB, 'order.created', old),
      await insertEvent(r.inspect, r.tenantB, 'order.created', old),
    ];
    const recentA = await insertEvent(r.inspect, r.tenantA);
    const recentB = await insertEvent(r.inspect, r.tenantB);
    const retention = new EventRetentionRepository();
    const path = r.transactions.db.crossTenant('event-retention');

    expect(await retention.purgeBatch(path, 30, 2)).toBe(2);
    expect(await retention.purgeBatch(path, 30, 2)).toBe(1);
    expect(await retention.purgeBatch(path, 30, 2)).toBe(0);
    const events: Array<{ seq: number }> = await r.inspect.query(
      'SELECT seq FROM events ORDER BY seq',
    );
    expect(events.map((e) => e.seq)).toEqual([recentA, recentB]);
    const purges: unknown[] = await r.inspect.query(
      'SELECT tenant_id, seq FROM event_purges ORDER BY tenant_id',
    );
    expect(purges).toEqual(
      [
        { tenant_id: r.tenantA, seq: oldA[0] },
        { tenant_id: r.tenantB, seq: oldB[1] },
      ].sort((x, y) => x.tenant_id - y.tenant_id),
    );
  });
});
