import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

/** One version: package.json, the OpenAPI document and the newest release in CHANGELOG.md. */
describe('the release version', () => {
  it('is the same in package.json, openapi.json (info.version) and CHANGELOG.md', async () => {
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
    const openapi = JSON.parse(await readFile('openapi.json', 'utf8')) as {
      info: { version: string };
    };
    const changelog = await readFile('CHANGELOG.md', 'utf8');
    const released = /^## (\d+\.\d+\.\d+)\b/m.exec(changelog)?.[1];
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect({ openapi: openapi.info.version, changelog: released }).toEqual({
      openapi: pkg.version,
      changelog: pkg.version,
    });
  });

  it('the licence says the same everywhere: proprietary', async () => {
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { license: string };
    const openapi = JSON.parse(await readFile('openapi.json', 'utf8')) as {
      info: { license: { name: string } };
    };
    expect(pkg.license).toBe('UNLICENSED');
    expect(openapi.info.license.name).toBe('Proprietary');
    expect(await readFile('LICENSE', 'utf8')).toMatch(/^Copyright .* All rights reserved\.$/m);
  });
});
