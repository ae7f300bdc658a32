import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_SCHEMA_PATH, clientSchemaSource } from './support/client-schema.js';
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

  it('serves the interactive reference at /docs', async () => {
    const res = await t.http.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
