// Builds with tsc only when a source is newer than the last build, so `npm start` and
// `npm run cli` work on a fresh clone and stay fast afterwards. Output goes to stderr.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `Node.js ${process.versions.node} is not supported: use 22.12 or later (22, 24 or 26).\n`,
  );
  process.exit(1);
}

const stamp = 'dist/.build-stamp';
const inputs = ['src', 'ormconfig.ts', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((entry) => newest(join(path, entry))));
}

const built = existsSync(stamp) ? statSync(stamp).mtimeMs : -1;
if (Math.max(...inputs.map(newest)) > built) {
  process.stderr.write('building (tsc)...\n');
  const tsc = spawnSync(
    process.execPath,
    ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'],
    {
      stdio: ['ignore', process.stderr, process.stderr],
    },
  );
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  writeFileSync(stamp, new Date().toISOString());
}
