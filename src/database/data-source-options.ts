import type { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';

export function dataSourceOptions(url: string, poolSize = 10): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    // Ids and minor-unit amounts are bigint; they stay far below 2^53.
    parseInt8: true,
    logging: false,
    extra: {
      max: poolSize,
      application_name: 'storefront',
      connectionTimeoutMillis: 5_000,
    },
  };
}
