import { DataSource } from 'typeorm';
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
  return {
    transactions: new Transactions(service),
    inspect,
    tenantA: tenants[0].id,
    tenantB: tenants[1].id,
    close: async () => {
      await service.destroy();
      await inspect.destroy();
    },
  };
}
