import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * openapi.json is generated from the code and kept in the repository; this fails when they
 * drift. `npm run openapi` rewrites the file.
 */
describe('OpenAPI document', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('is served at /openapi.json and matches the committed openapi.json', async () => {
    const res = await t.http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    const generated = `${JSON.stringify(res.body, null, 2)}\n`;
    if (process.env.UPDATE_OPENAPI === '1') await writeFile('openapi.json', generated);
    expect(generated).toBe(await readFile('openapi.json', 'utf8').catch(() => ''));
  });

  it('serves the interactive reference at /docs', async () => {
    const res = await t.http.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
