import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublishedIssuerRepository } from '../../src/auth/published-issuer.repository.js';
import { DemoSeededMarker1765100000000 } from '../../src/database/migrations/1765100000000-demo-seeded-marker.js';
import { DemoSeedRepository } from '../../src/seed/demo-seed.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';

/** service_settings is no tenant's: what a server publishes, whether the demo was seeded. */
/**
 * Advisory locks held in this spec's database only: the server is shared with other spec files
 * (and processes on an embedded database hold a shared advisory lock while they use it).
 */
const OWN_ADVISORY_LOCKS = `SELECT count(*)::int AS n FROM pg_locks
  WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

describe('service settings: the published issuer and the demo-seeded marker', () => {
  let r: RepositoryDatabase;
  const issuers = new PublishedIssuerRepository();
  const demo = new DemoSeedRepository();
  const db = () => r.transactions.db.shared();

  beforeAll(async () => {
    r = await repositoryDatabase();
  });
  afterAll(() => r.close());

  it('publish / find: the last issuer published', async () => {
    expect(await issuers.find(db())).toBeUndefined();
    await issuers.publish(db(), 'http://one.example');
    await issuers.publish(db(), 'http://two.example');
    expect(await issuers.find(db())).toBe('http://two.example');
  });

  it('isSeeded / markSeeded: the first demo tenant is kept', async () => {
    expect(await demo.isSeeded(db())).toBe(false);
    await demo.markSeeded(db(), r.tenantA);
    await demo.markSeeded(db(), r.tenantB);
    expect(await demo.isSeeded(db())).toBe(true);
    const rows: unknown[] = await r.inspect.query(
      "SELECT value FROM service_settings WHERE name = 'demo_seeded'",
    );
    expect(rows).toEqual([{ value: String(r.tenantA) }]);
  });

  it('the backfill migration marks a database seeded before the marker existed', async () => {
    await r.inspect.query("DELETE FROM service_settings WHERE name = 'demo_seeded'");
    await r.inspect.query(
      `INSERT INTO audit_log (tenant_id, actor, action, target_type, target_id)
       VALUES ($1, 'cli', 'tenant.create', 'tenant', $3), ($2, 'cli', 'seed.demo', 'tenant', $4)`,
      [r.tenantA, r.tenantB, String(r.tenantA), String(r.tenantB)],
    );
    const runner = r.inspect.createQueryRunner();
    try {
      await new DemoSeededMarker1765100000000().up(runner);
    } finally {
      await runner.release();
    }
    expect(await demo.isSeeded(db())).toBe(true);
    const rows: unknown[] = await r.inspect.query(
      "SELECT value FROM service_settings WHERE name = 'demo_seeded'",
    );
    expect(rows).toEqual([{ value: String(r.tenantB) }]);
  });

  it('lockFirstStart: held until the unit of work ends', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const unit = r.transactions.run(async (tx) => {
      await demo.lockFirstStart(tx.shared());
      await held;
    });
    await expect
      .poll(async () => {
        const rows: Array<{ n: number }> = await r.inspect.query(
          OWN_ADVISORY_LOCKS + ' AND granted',
        );
        return rows[0].n;
      })
      .toBe(1);
    release();
    await unit;
    const rows: Array<{ n: number }> = await r.inspect.query(OWN_ADVISORY_LOCKS);
    expect(rows[0].n).toBe(0);
  });
});
