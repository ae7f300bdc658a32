import { existsSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withPrivateTmpdir } from './private-tmpdir.js';

describe('withPrivateTmpdir', () => {
  it.each([
    [false, 0o700],
    [true, 0o711],
  ])(
    'points os.tmpdir() at an unlistable directory (root: %s) and removes it after',
    async (asRoot, mode) => {
      const dir = join(await mkdtemp(join(tmpdir(), 'pt-')), 'initdb-tmp');
      const outside = tmpdir();
      const seen = await withPrivateTmpdir(dir, asRoot, async () => ({
        tmp: tmpdir(),
        mode: statSync(dir).mode & 0o777,
      }));
      expect(seen).toEqual({ tmp: dir, mode });
      expect(tmpdir()).toBe(outside);
      expect(existsSync(dir)).toBe(false);
    },
  );
});
