import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { inspectionDataSource } from './support/inspection-data-source.js';
import { createTestDatabase } from './support/test-database.js';

/** Column types that can hold free-form text or bytes (hashes, ciphertext), and so a person's data. */
const TEXTUAL = [
  'text',
  'character varying',
  'character',
  'jsonb',
  'json',
  'ARRAY',
  'inet',
  'bytea',
  'USER-DEFINED',
];

/**
 * The personal-data inventory of docs/SECURITY.md#personal-data against the schema: every table
 * has its row, and every column that can hold text is named in it (as personal, and how it is
 * exported and erased, or as not personal, and why). A new table or text column fails here until
 * someone decides what it holds and writes it down.
 */
describe('personal-data inventory (docs/SECURITY.md)', () => {
  let db: DataSource;
  let inventory: Map<string, string>;

  beforeAll(async () => {
    db = await inspectionDataSource(await createTestDatabase());
    const doc = readFileSync(new URL('../docs/SECURITY.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Personal data'));
    const end = section.indexOf('\n## ', 3);
    inventory = new Map(
      [...(end > 0 ? section.slice(0, end) : section).matchAll(/^\| `([a-z_]+)` +\|(.*)\|$/gm)].map(
        (m) => [m[1], m[2]],
      ),
    );
  });
  afterAll(() => db?.destroy());

  it('has a row for every table of the schema, and no row for a table that is gone', async () => {
    const tables = (
      await db.query<Array<{ name: string }>>(
        `SELECT table_name AS name FROM information_schema.tables
         WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
      )
    ).map((t) => t.name);
    expect([...inventory.keys()].sort()).toEqual(tables);
  });

  it('names every column that can hold text in its table’s row', async () => {
    const columns = await db.query<Array<{ table: string; column: string }>>(
      `SELECT table_name AS table, column_name AS column FROM information_schema.columns
       WHERE table_schema = 'public' AND data_type = ANY($1) ORDER BY 1, 2`,
      [TEXTUAL],
    );
    const missing = columns
      .filter((c) => !(inventory.get(c.table) ?? '').includes(`\`${c.column}\``))
      .map((c) => `${c.table}.${c.column}`);
    expect(missing).toEqual([]);
  });
});
