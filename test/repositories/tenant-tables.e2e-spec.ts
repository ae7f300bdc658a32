import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TENANT_TABLES } from '../../src/database/sql/tenant-tables.js';
import { createTestDatabase } from '../support/test-database.js';

describe('the statement audit knows every tenant table', () => {
  let client: pg.Client;

  beforeAll(async () => {
    client = new pg.Client({ connectionString: await createTestDatabase() });
    await client.connect();
  });
  afterAll(() => client.end());

  it('lists exactly the tables of the migrated schema that have a tenant_id', async () => {
    const { rows } = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns
       WHERE table_schema = 'public' AND column_name = 'tenant_id' ORDER BY table_name`,
    );
    expect(rows.map((r) => r.table_name)).toEqual([...TENANT_TABLES].sort());
  });
});
