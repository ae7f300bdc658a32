import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DataSource } from 'typeorm';
import type { TestProject } from 'vitest/node';
import { dataSourceOptions } from '../src/database/data-source-options.js';
import { runMigrations } from '../src/database/run-migrations.js';
import { databaseUrlFor } from './support/database-url.js';
import { ensureBuilt } from './support/processes.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A server URL whose user may create databases (any database name in it is replaced). */
    serverUrl: string;
    /** Migrated database every spec file clones its own from. */
    templateDatabase: string;
  }
}

const noop = async (): Promise<void> => {};

/**
 * Starts one real PostgreSQL for the whole run (embedded, or DATABASE_URL's server) and
 * migrates a template database once; spec files clone it (test/support/test-database.ts).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Specs that run the server or CLI as child processes need dist/; build once, up front.
  ensureBuilt();
  let serverUrl = process.env.DATABASE_URL;
  let stopServer = noop;
  if (!serverUrl) {
    const { openEmbeddedPostgres } = await import('../src/database/embedded-postgres-server.js');
    const dir = await mkdtemp(join(tmpdir(), 'storefront-test-'));
    const server = await openEmbeddedPostgres(dir);
    serverUrl = server.url;
    stopServer = async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    };
  }
  const template = `storefront_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: databaseUrlFor(serverUrl, 'postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  const dataSource = new DataSource(dataSourceOptions(databaseUrlFor(serverUrl, template), 2));
  await dataSource.initialize();
  await runMigrations(dataSource);
  await dataSource.destroy();

  project.provide('serverUrl', serverUrl);
  project.provide('templateDatabase', template);

  return async () => {
    // Clones are named after the template; drop them all, then the template.
    const clones = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1`,
      [`t_${process.pid}_%`],
    );
    for (const { datname } of clones.rows)
      await admin.query(`DROP DATABASE ${datname} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.end();
    await stopServer();
  };
}
