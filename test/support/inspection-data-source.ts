import pg from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options.js';

/**
 * A DataSource on `url` whose connections are plain node-postgres clients: a spec's own
 * statements (reading or arranging any tenant's rows) are not the service's, and the
 * service's statement audit does not apply to them.
 */
export async function inspectionDataSource(url: string): Promise<DataSource> {
  const options = dataSourceOptions(url, { size: 3, applicationName: 'storefront-test' });
  const dataSource = new DataSource({
    ...options,
    extra: { ...(options.extra as object), Client: pg.Client },
  });
  return dataSource.initialize();
}
