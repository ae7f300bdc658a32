import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './src/database/data-source-options.js';

/**
 * The DataSource for the TypeORM CLI (`npm run typeorm -- migration:show`). It needs
 * DATABASE_URL; the embedded database is reached through `npm start` / `npm run cli`,
 * which migrate on their own.
 */
const url = process.env.DATABASE_URL;
if (!url) throw new Error('ormconfig: set DATABASE_URL to run the TypeORM CLI');

// Schema changes: DDL names tenant tables without a tenant, so this pool is not audited.
export default new DataSource(dataSourceOptions(url, { size: 10, audited: false }));
