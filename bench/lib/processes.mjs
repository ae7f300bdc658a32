// The two servers under test: the built service on a throwaway embedded database, and the
// reference on that same database. Both are node processes spawned directly (no npm
// wrapper), so their pids are the ones whose memory is read.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const HUGE = '1000000000';

/** Every limit that a bench from one address with one token would run into. */
export const RAISED_LIMITS = {
  TOKEN_RATE_LIMIT_PER_CLIENT: HUGE,
  TOKEN_FAILURES_PER_ADDRESS: HUGE,
  API_RATE_LIMIT_PER_TOKEN: HUGE,
  LOGIN_FAILURES_PER_EMAIL: HUGE,
  LOGIN_FAILURES_PER_CUSTOMER_IP: HUGE,
  REGISTRATIONS_PER_CUSTOMER_IP: HUGE,
};

export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/**
 * Starts dist/src/main.js with a fresh DATA_DIR (embedded PostgreSQL, demo seed) and waits
 * until it is ready; the demo app's credentials come from the first-start banner.
 */
export async function startService(extraNodeArgs = []) {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'storefront-bench-'));
  const env = {
    ...process.env,
    NODE_ENV: 'development', // the banner prints the demo secret only outside production
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: '',
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    SECRET_PEPPER: '',
    JWT_SIGNING_KEY: '',
    SEED_DEMO: 'true',
    // The service's default (one line per request); BENCH_LOG_LEVEL=warn leaves them out.
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    ...RAISED_LIMITS,
    // The webhook measure's receiver listens on loopback, plain HTTP (webhooks.mjs).
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  };
  // The V8 flags `npm start` runs with, then e.g.
  // BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" (written on exit).
  const nodeArgs = [
    ...(await startFlags()),
    ...extraNodeArgs,
    ...(process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ];
  const child = spawn(process.execPath, [...nodeArgs, 'dist/src/main.js'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    process.stderr.write(chunk);
  });
  const base = `http://127.0.0.1:${port}`;
  const service = {
    name: 'service',
    child,
    pid: child.pid,
    base,
    port,
    dataDir,
    env,
    async stop() {
      await stopChild(child);
      await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
  try {
    await waitForReady(base, child, () => stderr);
  } catch (error) {
    await service.stop();
    throw error;
  }
  const field = (name) => new RegExp(`${name}\\s+(\\S+)`).exec(stdout)?.[1];
  // Ready over HTTP can come before the banner has crossed the stdout pipe.
  const bannerDeadline = Date.now() + 10_000;
  while (!field('scopes') && Date.now() < bannerDeadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  service.clientId = field('client_id');
  service.clientSecret = field('client_secret');
  service.tenantId = Number(field('tenant'));
  if (!service.clientId || !service.clientSecret || !service.tenantId) {
    await service.stop();
    throw new Error(`no demo credentials in the service's banner:\n${stdout}`);
  }
  service.databaseUrl = embeddedDatabaseUrl(dataDir);
  // The banner is read: the request log lines that follow are drained, not kept.
  child.stdout.removeAllListeners('data');
  child.stdout.resume();
  return service;
}

/** The node flags of package.json's `start` script (`node <flags> dist/src/main.js`). */
async function startFlags() {
  const { scripts } = JSON.parse(await readFile('package.json', 'utf8'));
  const match = /node ((?:--[\w-]+(?:=\S+)? )*)dist\/src\/main\.js/.exec(scripts.start);
  return match ? match[1].split(' ').filter(Boolean) : [];
}

/**
 * The embedded database's URL, as src/database/embedded-postgres-server.ts builds it: the
 * credentials file in DATA_DIR and the port from line 4 of the cluster's postmaster.pid.
 */
export function embeddedDatabaseUrl(dataDir) {
  const { user, password } = JSON.parse(
    readFileSync(join(dataDir, 'postgres-credentials.json'), 'utf8'),
  );
  const port = Number(
    readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[3],
  );
  return `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/storefront`;
}

/** bench/reference-server.mjs for one tenant and app of the service's database. */
export function startReference({ databaseUrl, dataDir, tenantId, appId, publicUrl }) {
  return startBenchServer('reference', '../reference-server.mjs', 'BENCH_REFERENCE_NODE_ARGS', {
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    TENANT_ID: String(tenantId),
    APP_ID: String(appId),
    PUBLIC_URL: publicUrl,
    SECRET_PEPPER: '',
    JWT_SIGNING_KEY: '',
  });
}

/** bench/floor-server.mjs (BENCH_FLOOR=1): NestJS on Fastify alone, on get by id. */
export function startFloor({ databaseUrl, tenantId }) {
  return startBenchServer('floor', '../floor-server.mjs', 'BENCH_FLOOR_NODE_ARGS', {
    DATABASE_URL: databaseUrl,
    TENANT_ID: String(tenantId),
  });
}

/**
 * One of the bench's own servers (`script`, relative to this file) on a free port, with the
 * node flags of `nodeArgsVariable`, named statements as BENCH_REFERENCE_PREPARED says, its
 * stderr passed through; resolves once it is ready.
 */
async function startBenchServer(name, script, nodeArgsVariable, env) {
  const port = await freePort();
  const nodeArgs = (process.env[nodeArgsVariable] ?? '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [...nodeArgs, fileURLToPath(new URL(script, import.meta.url))],
    {
      env: {
        ...process.env,
        ...env,
        PORT: String(port),
        REFERENCE_PREPARED: referencePrepared() ? '1' : '',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    process.stderr.write(chunk);
  });
  const base = `http://127.0.0.1:${port}`;
  const server = { name, child, pid: child.pid, base, port, stop: () => stopChild(child) };
  try {
    await waitForReady(base, child, () => stderr);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

/**
 * The reference names its statements (prepared and planned once per connection), as the
 * service does on its hot paths (`prepared` in src/database/sql/execute.ts), so the ratio compares like
 * with like. BENCH_REFERENCE_PREPARED=0 sends them unnamed.
 */
export const referencePrepared = () => process.env.BENCH_REFERENCE_PREPARED !== '0';

async function waitForReady(base, child, output) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`${base} exited with ${child.exitCode} before it was ready\n${output()}`);
    }
    const ok = await fetch(`${base}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${base} was not ready within 120 s`);
}

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Statistics for the planner, as autovacuum would take them a minute or more after a bulk
 * load: without them a fresh table is planned as nearly empty (a bitmap scan and a sort of
 * the whole tenant instead of the list index), for the service and the reference alike.
 */
export async function analyze(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

/** Peak (VmHWM) and current (VmRSS) resident memory of a process, in MB. */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
}

let ticksPerSecond;

/** CPU time (user + system) a process has used so far, in seconds. */
export function cpuSecondsOf(pid) {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  // The fields after the command name, which is in parentheses and may hold spaces.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond; // utime, stime
}
