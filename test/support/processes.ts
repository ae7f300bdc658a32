import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { freePort } from '../../src/database/free-port.js';
import { createTestDatabase } from './test-database.js';

/**
 * The time budget of a test that starts `processes` Node processes (server, worker, CLI, npm)
 * and waits for them. Each spends about a CPU-second before doing anything (Node, Nest and some
 * 1,400 modules; the embedded database's start and stop when it runs one), which a 2-core
 * machine running another spec file beside it stretches several-fold: the 20 s sized for
 * in-process tests ran out on Node 22 where a test started several, one after the other.
 */
export function processBudget(processes: number): number {
  return 20_000 + 10_000 * processes;
}

/** Builds dist/ if sources changed (as `npm start` does); child-process tests run the build. */
export function ensureBuilt(): void {
  const result = spawnSync(process.execPath, ['scripts/ensure-built.mjs'], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('build failed');
}

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  stdout: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** The node flags of package.json's `start` script (`node <flags> dist/src/main.js`). */
export async function startFlags(): Promise<string[]> {
  const { scripts } = JSON.parse(await readFile('package.json', 'utf8')) as {
    scripts: Record<string, string>;
  };
  const match = /node ((?:--[\w-]+(?:=\S+)? )*)dist\/src\/main\.js/.exec(scripts.start);
  if (!match) throw new Error('no node flags found in the start script');
  return match[1].split(' ').filter(Boolean);
}

/**
 * Starts `node [nodeArgs] dist/src/main.js` and resolves once it logs that it listens.
 */
export async function startServer(
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<ServerProcess> {
  // info at least: the helper waits for the "listening" line.
  const level = env.LOG_LEVEL === 'debug' ? 'debug' : 'info';
  for (let attempt = 1; ; attempt++) {
    const port = Number(env.PORT ?? (await freePort()));
    try {
      return await startProcess(
        'dist/src/main.js',
        { ...env, LOG_LEVEL: level, PORT: String(port) },
        '"msg":"listening on',
        port,
        nodeArgs,
      );
    } catch (error) {
      // The picked port was free when probed; another spec's listen(0) may take it before
      // the child binds it. Only a port we picked is tried again.
      const taken = error instanceof Error && error.message.includes('EADDRINUSE');
      if (!taken || env.PORT !== undefined || attempt === 3) throw error;
    }
  }
}

/** Starts `node dist/src/worker.js` (import workers only) and resolves once it runs. */
export function startWorker(env: Record<string, string>): Promise<ServerProcess> {
  return startProcess(
    'dist/src/worker.js',
    { LOG_LEVEL: 'info', ...env },
    '"msg":"worker running"',
    0,
  );
}

async function startProcess(
  script: string,
  env: Record<string, string>,
  readyLine: string,
  port: number,
  nodeArgs: string[] = [],
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const listening = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(readyLine)) resolve();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    void exited.then((code) =>
      reject(new Error(`${script} exited (${String(code)}) before it was ready:\n${out}`)),
    );
  });
  await listening;
  return { child, port, url: `http://127.0.0.1:${port}`, stdout: () => out, exited };
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `node <script> <args>` with `env`, to its end. */
export async function runNode(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<CliResult> {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stdout, stderr };
}

export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return runNode('dist/src/cli.js', args, env);
}

/** `npm run cli -- <args> --json` with `env`: its one JSON object; throws when it failed. */
export async function runCliJson(
  args: string[],
  env: Record<string, string>,
): Promise<Record<string, unknown>> {
  const result = await runCli([...args, '--json'], env);
  if (result.status !== 0) {
    throw new Error(`cli ${args.join(' ')} failed: ${result.stdout} ${result.stderr}`);
  }
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

/** An access token from a running server's token endpoint (client_secret_post). */
export async function fetchAccessToken(
  server: ServerProcess,
  client: { client_id: string; client_secret: string },
  scope: string,
): Promise<string> {
  const res = await fetch(`${server.url}/builders/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', ...client, scope }),
  });
  if (res.status !== 200)
    throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/**
 * The environment of production-like processes sharing one database (as behind a load
 * balancer): a fresh test database (or the one given) and the keys every instance must share.
 */
export async function sharedInstanceEnv(
  publicUrl: string,
  databaseUrl?: string,
): Promise<Record<string, string>> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl ?? (await createTestDatabase()),
    SECRET_PEPPER: randomBytes(32).toString('base64'),
    JWT_SIGNING_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    PUBLIC_URL: publicUrl,
  };
}
