import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  fetchAccessToken,
  processBudget,
  startServer,
  type ServerProcess,
} from './support/processes.js';

/**
 * Several processes on one DATA_DIR share its embedded PostgreSQL (two `npm start` on other
 * ports, a worker, the CLI): the database stays while any of them runs, and the last one to
 * stop stops it, whoever started it, including a server a crashed process left running.
 */
// A test starts two servers, one after the other or side by side.
describe('processes sharing one embedded database', { timeout: processBudget(2) }, () => {
  let dataDir: string;
  let env: Record<string, string>;
  const servers: ServerProcess[] = [];
  const postmasterPid = () => join(dataDir, 'postgres', 'postmaster.pid');

  async function start(): Promise<ServerProcess> {
    const server = await startServer(env);
    servers.push(server);
    return server;
  }

  async function stop(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM') {
    server.child.kill(signal);
    return server.exited;
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'storefront-shared-'));
    env = { DATA_DIR: dataDir, DATABASE_URL: '', NODE_ENV: 'development' };
  });

  afterEach(async () => {
    for (const server of servers.splice(0)) {
      if (server.child.exitCode === null) await stop(server, 'SIGKILL');
    }
  });

  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it("a second server shares the first one's database, and keeps it when the first stops", async () => {
    const first = await start();
    const second = await start();
    expect(second.stdout()).toMatch(/embedded PostgreSQL already running on port \d+; sharing it/);
    const client = {
      client_id: /client_id\s+(app_[\w-]+)/.exec(first.stdout())![1],
      client_secret: /client_secret\s+(cs_[\w-]+)/.exec(first.stdout())![1],
    };
    const authorization = `Bearer ${await fetchAccessToken(second, client, 'products:read')}`;

    expect(await stop(first)).toBe(0);
    expect(first.stdout()).toContain(
      `embedded PostgreSQL left running: still used by process ${second.child.pid}`,
    );
    expect(existsSync(postmasterPid())).toBe(true);
    const products = await fetch(`${second.url}/v1/products`, { headers: { authorization } });
    expect(products.status).toBe(200);
    expect((await fetch(`${second.url}/health/ready`)).status).toBe(200);

    // The last one out stops it, though it did not start it.
    expect(await stop(second)).toBe(0);
    expect(second.stdout()).toContain('"msg":"embedded PostgreSQL stopped"');
    expect(existsSync(postmasterPid())).toBe(false);
  });

  it('after a crash, the next start reuses the database left running, and stops it when done', async () => {
    const crashed = await start();
    const orphan = (await readFile(postmasterPid(), 'utf8')).split('\n')[0];
    expect(await stop(crashed, 'SIGKILL')).toBe(null);
    // Killed outright, it could stop nothing: the database runs on, by itself.
    expect((await readFile(postmasterPid(), 'utf8')).split('\n')[0]).toBe(orphan);

    const next = await start();
    expect(next.stdout()).toMatch(/embedded PostgreSQL already running on port \d+; sharing it/);
    expect((await fetch(`${next.url}/health/ready`)).status).toBe(200);
    expect(await stop(next)).toBe(0);
    expect(next.stdout()).toContain('"msg":"embedded PostgreSQL stopped"');
    expect(existsSync(postmasterPid())).toBe(false);
  });
});
