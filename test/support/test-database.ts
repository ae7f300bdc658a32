import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { databaseUrlFor } from './database-url.js';

/**
 * A fresh database cloned from the migrated template: spec files run in parallel and never
 * see each other's rows. Dropped by the global teardown.
 */
export async function createTestDatabase(): Promise<string> {
  const serverUrl = inject('serverUrl');
  const template = inject('templateDatabase');
  const ownerPid = template.slice('storefront_template_'.length);
  const name = `t_${ownerPid}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrlFor(serverUrl, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  return databaseUrlFor(serverUrl, name);
}

/** An empty database (no schema), for the migration test. */
export async function createEmptyDatabase(): Promise<string> {
  const serverUrl = inject('serverUrl');
  const ownerPid = inject('templateDatabase').slice('storefront_template_'.length);
  const name = `t_${ownerPid}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrlFor(serverUrl, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return databaseUrlFor(serverUrl, name);
}
