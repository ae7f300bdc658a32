import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/database/free-port.js';
import { ensureBuilt, processBudget } from './support/processes.js';

interface Started {
  pid: number;
  url: string;
  output: () => string;
  /**
   * Once npm and every process sharing its output (the server) are gone: npm's code, or the
   * signal it re-raised on itself after the server ended.
   */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `npm start` in a terminal, on the embedded database: npm, its shell and the server are one
 * process group, and Ctrl-C (or a SIGTERM to the group) reaches all of them. The embedded
 * PostgreSQL runs in a session of its own, so the server drains first and stops it last:
 * no connection is cut under a request (57P01), and nothing logs a stack trace.
 */
// npm, then the server (creating the database on the first run).
describe(
  'a signal to the whole process group (Ctrl-C in a terminal)',
  { timeout: processBudget(2) },
  () => {
    let dataDir: string;
    let credentials: { client_id: string; client_secret: string } | undefined;

    beforeAll(async () => {
      ensureBuilt();
      dataDir = await mkdtemp(join(tmpdir(), 'storefront-interrupt-'));
    });
    afterAll(() => rm(dataDir, { recursive: true, force: true }));

    /** `npm start` as a terminal's foreground job: the leader of a process group of its own. */
    async function npmStart(): Promise<Started> {
      const port = await freePort();
      const child = spawn('npm', ['start'], {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          // npm runs `node` from PATH: the line this suite runs on.
          PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
          DATA_DIR: dataDir,
          DATABASE_URL: '',
          NODE_ENV: 'development',
          PORT: String(port),
          LOG_LEVEL: 'info',
        },
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      const exited = once(child, 'close').then(([code, signal]) => ({
        code: code as number | null,
        signal: signal as NodeJS.Signals | null,
      }));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', () => out.includes('"msg":"listening on') && resolve());
        void exited.then(({ code }) => reject(new Error(`npm start exited (${code}):\n${out}`)));
      });
      return { pid: child.pid!, url: `http://127.0.0.1:${port}`, output: () => out, exited };
    }

    async function token(url: string): Promise<string> {
      const res = await fetch(`${url}/builders/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          ...credentials,
          scope: 'products:read',
        }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { access_token: string }).access_token;
    }

    it.each(['SIGINT', 'SIGTERM'] as const)(
      '%s to the group: requests in flight finish, then the database stops; no 57P01, no stack trace',
      async (signal) => {
        const server = await npmStart();
        credentials ??= {
          client_id: /client_id\s+(app_[\w-]+)/.exec(server.output())![1],
          client_secret: /client_secret\s+(cs_[\w-]+)/.exec(server.output())![1],
        };
        const authorization = `Bearer ${await token(server.url)}`;

        // Eight clients list products back to back (each a database statement) until the
        // server stops taking connections; the signal comes while they are at it.
        const answers: Array<{ status: number; body: string }> = [];
        let signalled: () => void;
        const signalAfter = new Promise<void>((resolve) => (signalled = resolve));
        const client = async () => {
          for (;;) {
            let res: Response;
            try {
              res = await fetch(`${server.url}/v1/products`, { headers: { authorization } });
            } catch {
              return; // refused: the server no longer listens
            }
            answers.push({ status: res.status, body: await res.text() });
            if (answers.length === 40) signalled();
          }
        };
        const clients = Promise.all(Array.from({ length: 8 }, client));
        await signalAfter;
        process.kill(-server.pid, signal);

        // npm ends as an interrupted job does (by the signal, or 0); the server itself logged
        // "stopped" just before its own exit(0), once the database had stopped.
        const { code, signal: npmSignal } = await server.exited;
        expect(code === 0 || npmSignal === signal).toBe(true);
        await clients;
        const output = server.output();
        expect(output).toContain(`${signal}: stopping`);
        expect(output).toContain('"msg":"stopped"');
        expect(output).not.toMatch(/57P01|terminating connection/);
        expect(output).not.toMatch(/"stack"|\n\s+at /);
        // Every answer is the list, or (once draining began) the shutdown's own 503.
        const unexpected = answers.filter(
          (a) => a.status !== 200 && !(a.status === 503 && a.body.includes('shutting down')),
        );
        expect(unexpected).toEqual([]);
        expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
      },
    );
  },
);
