// Builds with tsc only when a source is newer than the last build, so `npm start` and
// `npm run cli` work on a fresh clone and stay fast afterwards. Output goes to stderr (stdout
// belongs to the command that follows: `npm run -s cli -- … --json` prints one JSON object).
// A production image has dist/ and no sources: nothing to build there.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const at = (path) => join(root, path);

// `engines` in package.json, in the two forms it uses: `^X.Y.Z` (that major, at least X.Y.Z)
// and `>=X` (from X on). `npm install` refuses other versions (engine-strict in .npmrc); this
// says so again for a node_modules installed under another Node.
const engines = JSON.parse(readFileSync(at('package.json'), 'utf8')).engines.node;
const version = process.versions.node.split('.').map(Number);
const atLeast = (floor) => {
  for (let i = 0; i < 3; i++) if (version[i] !== floor[i]) return version[i] > floor[i];
  return true;
};
const supported = engines.split('||').some((range) => {
  const [, form, digits] = /^\s*(\^|>=)([\d.]+)\s*$/.exec(range) ?? [];
  if (!form) return true; // a form not understood here: npm has judged it
  const floor = [...digits.split('.').map(Number), 0, 0].slice(0, 3);
  return atLeast(floor) && (form === '>=' || version[0] === floor[0]);
});
if (!supported) {
  process.stderr.write(
    `Node.js ${process.versions.node} is not supported: this project needs ${engines} ` +
      '(`engines` in package.json).\n',
  );
  process.exit(1);
}

const stamp = at('dist/.build-stamp');
const inputs = [
  'src',
  'examples',
  'ormconfig.ts',
  'tsconfig.json',
  'tsconfig.build.json',
  'package-lock.json',
];

function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((entry) => newest(join(path, entry))));
}

const built = existsSync(stamp) ? statSync(stamp).mtimeMs : -1;
if (existsSync(at('src')) && Math.max(...inputs.map((input) => newest(at(input)))) > built) {
  process.stderr.write('building (tsc)...\n');
  const tsc = spawnSync(
    process.execPath,
    [at('node_modules/typescript/bin/tsc'), '-p', at('tsconfig.build.json')],
    { stdio: ['ignore', process.stderr, process.stderr] },
  );
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  writeFileSync(stamp, new Date().toISOString());
}
