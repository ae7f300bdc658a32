import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

/**
 * The folders of src/, lowest first. A folder may import from itself and from folders listed
 * before it, never from one after it: the graph has no cycles, and low code (the unit of
 * work, the outbox) cannot come to depend on a feature. Files directly in src/ (entry points,
 * the root modules) sit above every folder.
 */
const LAYERS = [
  'config',
  'common',
  'database',
  'rate-limit',
  'queue',
  'audit',
  'outbox',
  'core',
  'health',
  'tenants',
  'auth',
  'metrics',
  'client',
  'events',
  'apps',
  'oauth',
  'idempotency',
  'products',
  'orders',
  'customers',
  'marketplace',
  'webhooks',
  'maintenance',
  'seed',
  'openapi',
  'admin',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The src/ folder a path lies in, or undefined for a file directly in src/. */
function folderOf(path: string): string | undefined {
  const parts = relative(SRC, path).split(sep);
  return parts.length > 1 ? parts[0] : undefined;
}

describe('folder layering', () => {
  const files = sourceFiles(SRC);

  it('lists every folder of src/', () => {
    const folders = new Set(files.map(folderOf).filter((f) => f !== undefined));
    expect([...folders].sort()).toEqual([...LAYERS].sort());
  });

  it('no folder imports one above it', () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = folderOf(file);
      if (from === undefined) continue;
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
        const to = folderOf(normalize(join(dirname(file), match[1])));
        if (to === undefined) {
          upward.push(`${relative(SRC, file)} imports the root file ${match[1]}`);
        } else if (LAYERS.indexOf(to) > LAYERS.indexOf(from)) {
          upward.push(`${relative(SRC, file)} (${from}) imports ${to}: ${match[1]}`);
        }
      }
    }
    expect(upward).toEqual([]);
  });
});
