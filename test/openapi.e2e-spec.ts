import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as prettier from 'prettier';
import { CLIENT_SCHEMA_PATH, clientSchemaSource } from './support/client-schema.js';
import { errorTable, scopeTable, withSection } from './support/readme-tables.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const update = process.env.UPDATE_OPENAPI === '1';

/** Compares with the committed file, or rewrites it under `npm run openapi`. */
async function expectCommitted(path: string, generated: string): Promise<void> {
  if (update) await writeFile(path, generated);
  expect(generated).toBe(await readFile(path, 'utf8').catch(() => ''));
}

/**
 * openapi.json and the typed client's types are generated from the code and kept in the
 * repository; these fail when they drift. `npm run openapi` rewrites both files.
 */
describe('OpenAPI document', () => {
  let t: TestApp;
  let document: Record<string, unknown>;
  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.http.get('/openapi.json');
    if (res.status !== 200) throw new Error(`/openapi.json answered ${res.status}`);
    document = res.body as Record<string, unknown>;
  });
  afterAll(() => t.close());

  it('is served at /openapi.json and matches the committed openapi.json', async () => {
    expect(document.openapi).toMatch(/^3\./);
    await expectCommitted('openapi.json', `${JSON.stringify(document, null, 2)}\n`);
  });

  it('the typed client types (src/client/schema.ts) match the document', async () => {
    await expectCommitted(CLIENT_SCHEMA_PATH, await clientSchemaSource(document));
  });

  it('the README’s error and scope tables match the code', async () => {
    let readme = await readFile('README.md', 'utf8');
    readme = withSection(readme, 'error-codes', errorTable());
    readme = withSection(
      readme,
      'scopes',
      scopeTable(document as Parameters<typeof scopeTable>[0]),
    );
    const options = await prettier.resolveConfig('README.md');
    await expectCommitted(
      'README.md',
      await prettier.format(readme, { ...options, filepath: 'README.md' }),
    );
  });

  it('reads as integrators’ tools need: described, secured, typed', () => {
    type Operation = { description?: string; security?: unknown[]; tags?: string[] };
    const doc = document as {
      paths: Record<string, Record<string, Operation>>;
      tags: Array<{ name: string; description?: string }>;
      servers: Array<{ url: string }>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ name: `${method} ${path}`, op })),
    );
    expect(operations.filter(({ op }) => !op.description).map((o) => o.name)).toEqual([]);
    expect(operations.filter(({ op }) => !op.security).map((o) => o.name)).toEqual([]);
    const described = new Set(doc.tags.filter((tag) => tag.description).map((tag) => tag.name));
    expect(
      operations.flatMap(({ op }) => op.tags ?? []).filter((tag) => !described.has(tag)),
    ).toEqual([]);
    expect(doc.servers).toEqual([{ url: '/', description: 'This server' }]);
    // Decimal amounts are the only non-integer numbers; ids, counts, pages are integers.
    const numbers: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (!node || typeof node !== 'object') return;
      const schema = node as { type?: string; $ref?: string };
      if (schema.type === 'number') numbers.push(path.split('/').pop()!);
      if (schema.type === 'object' && path.endsWith('/Object')) numbers.push(path);
      for (const [key, value] of Object.entries(node)) walk(value, `${path}/${key}`);
    };
    walk(document, '#');
    expect(new Set(numbers)).toEqual(
      new Set(['price', 'unit_price', 'total', 'refunded_total', 'amount']),
    );
    expect(JSON.stringify(document)).not.toContain('#/components/schemas/Object');
  });

  it('serves the interactive reference at /docs', async () => {
    const res = await t.http.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
