import { DataSource } from 'typeorm';
import type { TenantSql } from '../../src/database/sql/tenant-sql.js';
import { Transactions } from '../../src/database/transactions.js';
import { dataSourceOptions } from '../../src/database/data-source-options.js';
import { inspectionDataSource } from './inspection-data-source.js';
import { createTestDatabase } from './test-database.js';

/**
 * Repository specs' ground (the "medium" tier: repositories against real PostgreSQL, no HTTP):
 * a fresh migrated database, the service's own guarded pool (the statement audit applies, as always),
 * two tenants, and a plain connection (`inspect`) to arrange and read rows of either tenant.
 */
export interface RepositoryDatabase {
  transactions: Transactions;
  inspect: DataSource;
  tenantA: number;
  tenantB: number;
  /** Tenant A's path on the pool: each statement on its own. */
  a(): TenantSql;
  /** Runs `work` in a unit of work on tenant A's path. */
  inA<T>(work: (db: TenantSql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function repositoryDatabase(): Promise<RepositoryDatabase> {
  const url = await createTestDatabase();
  const service = await new DataSource(dataSourceOptions(url, 4)).initialize();
  const inspect = await inspectionDataSource(url);
  const tenants: Array<{ id: number }> = await inspect.query(
    `INSERT INTO tenants (name, currency) VALUES ('Tenant A', 'EUR'), ('Tenant B', 'USD')
     RETURNING id`,
  );
  const transactions = new Transactions(service);
  const tenantA = tenants[0].id;
  return {
    transactions,
    inspect,
    tenantA,
    tenantB: tenants[1].id,
    a: () => transactions.db.tenant(tenantA),
    inA: (work) => transactions.run((db) => work(db.tenant(tenantA))),
    close: async () => {
      await service.destroy();
      await inspect.destroy();
    },
  };
}
