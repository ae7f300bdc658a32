import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { load, YAML11_SCHEMA } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';

const read = (path: string) => readFile(path, 'utf8');

/** package.json `engines`: what every package of the lockfile installs on. */
const ENGINES = '^22.22.3 || ^24.15.0 || >=26';

// semver (npm's own) comes with the dependencies; only `satisfies` is used.
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
};

/**
 * Where the supported Node.js lines are written down, they agree: `engines` (with the
 * lockfile), the Dockerfile, CI and the README. Node 20 is past its end of life: the README no
 * longer names it.
 */
describe('supported Node.js lines: 22, 24 and 26 (from 22.22.3 and 24.15.0)', () => {
  it('package.json engines: exactly the versions every locked package installs on', async () => {
    const pkg = JSON.parse(await read('package.json')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(ENGINES);
    // The intersection of the lockfile's engines, checked over every Node version 18–30 with
    // minors and patches up to 40: npm (engine-strict, .npmrc) refuses what falls outside.
    const lock = JSON.parse(await read('package-lock.json')) as {
      packages: Record<string, { engines?: { node?: unknown } }>;
    };
    const ranges = Object.entries(lock.packages).flatMap(([path, p]) =>
      path !== '' && typeof p.engines?.node === 'string' ? [p.engines.node] : [],
    );
    expect(lock.packages[''].engines?.node).toBe(ENGINES);
    const disagree: string[] = [];
    for (let major = 18; major <= 30; major++) {
      for (let minor = 0; minor <= 40; minor++) {
        for (const patch of [0, 1, 2, 3, 4, 9, 40]) {
          const v = `${major}.${minor}.${patch}`;
          const installs = ranges.every((range) => semver.satisfies(v, range));
          if (installs !== semver.satisfies(v, ENGINES)) disagree.push(v);
        }
      }
    }
    expect(disagree).toEqual([]);
  });

  it('.npmrc makes npm refuse an unsupported Node at install time', async () => {
    expect((await read('.npmrc')).split('\n')).toContain('engine-strict=true');
  });

  it('the Dockerfile builds and runs on the active LTS line, 26', async () => {
    const froms = [...(await read('Dockerfile')).matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThan(0);
    for (const image of froms) expect(image).toMatch(/^node:26-/);
  });

  it('CI runs the suite on the oldest (22) and the newest (26) line', async () => {
    const ci = await read('.ci/run');
    expect(ci).toMatch(/^NODE_22=22\.\d+\.\d+$/m);
    expect(ci).toMatch(/^NODE_26=26\.\d+\.\d+$/m);
    expect(ci).toContain('PATH="$BIN_22:$PATH" step npm test');
    expect(ci).toMatch(/export PATH="\$BIN_26:\$PATH"[\s\S]*step npm test/);
  });

  it('the README says which lines are supported and which are tested', async () => {
    const readme = await read('README.md');
    expect(readme).toContain('The supported lines are the LTS lines 22, 24 and 26');
    expect(readme).toContain(
      `Requirements: Node.js 22.22.3 or later on 22, 24.15.0 or later on 24, or 26 and later`,
    );
    expect(readme).toContain('CI runs the whole suite on 22 and 26');
    expect(readme).not.toMatch(/node:20|Node(\.js)? 20\b/);
  });
});

/**
 * The V8 flags of docs/BENCHMARKS.md and the README: the same wherever the service is started,
 * and accepted by the Node.js line this suite runs on (CI runs it on 22 and 26): node refuses
 * to start on a flag its V8 no longer knows.
 */
describe('the V8 flags the service runs with', () => {
  const FLAGS = [
    '--max-old-space-size=256',
    '--max-semi-space-size=16',
    '--no-allocation-site-pretenuring',
  ];

  it('npm start, start:prod, worker and the Dockerfile pass the same flags', async () => {
    const { scripts } = JSON.parse(await read('package.json')) as {
      scripts: Record<string, string>;
    };
    const flagsOf = (command: string) =>
      /node ((?:--[\w-]+(?:=\S+)? )*)dist\/src\/\w+\.js/.exec(command)?.[1].trim().split(' ');
    const scriptFlags = ['start', 'start:prod', 'worker'].map((name) => [
      name,
      flagsOf(scripts[name]),
    ]);
    expect(scriptFlags).toEqual([
      ['start', FLAGS],
      ['start:prod', FLAGS],
      ['worker', FLAGS],
    ]);
    const cmd = /^CMD \[(.*)\]$/m.exec(await read('Dockerfile'))?.[1];
    expect(cmd).toBe(['node', ...FLAGS, 'dist/src/main.js'].map((a) => `"${a}"`).join(', '));
  });

  it('this Node.js line starts with them', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      ...FLAGS,
      '-e',
      'process.stdout.write("started")',
    ]);
    expect(stdout).toBe('started');
  });
});

/** docker-compose.yml as a production-like run: no secret in it, loopback only, restarted. */
describe('docker-compose.yml', () => {
  interface Service {
    image?: string;
    build?: string;
    restart?: string;
    environment?: Record<string, string>;
    ports?: string[];
    command?: string[] | string;
  }
  let services: Record<string, Service>;
  let text: string;

  beforeAll(async () => {
    text = await read('docker-compose.yml');
    services = (load(text, { schema: YAML11_SCHEMA }) as { services: Record<string, Service> })
      .services;
  });

  it('takes the database password from the environment, publishes on 127.0.0.1, restarts', () => {
    expect(text).toMatch(/POSTGRES_PASSWORD: \$\{POSTGRES_PASSWORD:\?/);
    expect(Object.keys(services)).toEqual(['db', 'db-replica', 'api-1', 'api-2', 'worker']);
    for (const service of Object.values(services)) expect(service.restart).toBe('unless-stopped');
    const published = Object.values(services).flatMap((s) => s.ports ?? []);
    expect(published).toEqual(['127.0.0.1:3000:3000', '127.0.0.1:3001:3000']);
    for (const name of ['api-1', 'api-2', 'worker']) {
      expect(services[name].environment?.DATABASE_URL).toMatch(
        /^postgres:\/\/storefront:\$\{POSTGRES_PASSWORD:\?[^}]*\}@db:5432\/storefront$/,
      );
    }
  });

  it('two API-only processes read from the streaming replica; one worker-only process', () => {
    for (const name of ['api-1', 'api-2']) {
      expect(services[name].build).toBe('.');
      expect(services[name].environment).toMatchObject({ WORKER: 'off' });
      expect(services[name].environment?.DATABASE_READ_URLS).toMatch(
        /@db-replica:5432\/storefront$/,
      );
    }
    expect(services.worker.command).toContain('dist/src/worker.js');
    expect(services.worker.environment?.WORKER).toBeUndefined();
    // A base backup of the primary as a standby (-R writes standby.signal and
    // primary_conninfo), streaming from a slot.
    expect(String(services['db-replica'].command)).toMatch(
      /pg_basebackup -h db .*-R -X stream -C -S/,
    );
    expect(services['db-replica'].image).toBe(services.db.image);
  });
});
