import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from './support/eventually.js';
import { processBudget, runCli, startServer, type ServerProcess } from './support/processes.js';

/**
 * The set-up a new user gets: the built server on an embedded database in DATA_DIR, the CLI
 * beside it (running or not), a clean SIGTERM, and a restart that keeps everything.
 */
// A test starts up to three processes (the server, then the CLI twice or the server again).
describe('npm start and the CLI on the embedded database', { timeout: processBudget(3) }, () => {
  let dataDir: string;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;
  const postmasterPid = () => join(dataDir, 'postgres', 'postmaster.pid');

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'storefront-start-'));
    // No DATABASE_URL: the zero-configuration path, as a developer runs it.
    env = { DATA_DIR: dataDir, DATABASE_URL: '', NODE_ENV: 'development' };
  });

  afterAll(async () => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('first start: migrates, seeds the demo once, prints the credentials and a curl line, serves', async () => {
    server = await startServer(env);
    const ready = await fetch(`${server.url}/health/ready`);
    expect(ready.status).toBe(200);
    const out = server.stdout();
    expect(out).toMatch(/client_id\s+app_[\w-]+/);
    expect(out).toMatch(/client_secret\s+cs_[\w-]{43}/);
    expect(out).toContain(`curl -s -X POST http://localhost:${server.port}/builders/oauth/token`);
    // The secret is printed, never logged.
    const secret = /client_secret\s+(cs_[\w-]+)/.exec(out)![1];
    const logLines = out.split('\n').filter((l) => l.startsWith('{'));
    expect(logLines.join('\n')).not.toContain(secret);
  });

  it("a request's log line reaches standard output, with no traffic after it", async () => {
    // Lines are written asynchronously; none may wait for more traffic to go out.
    const res = await fetch(`${server!.url}/v1/orders`);
    expect(res.status).toBe(401);
    const id = res.headers.get('x-request-id')!;
    const line = `"reqId":"${id}"`;
    await within(2_500, () => Promise.resolve(server!.stdout().includes(line)));
  });

  it('the CLI works while the server runs, on the same database', async () => {
    const result = await runCli(
      ['tenant', 'create', '--name', 'Acme', '--currency', 'TRY', '--json'],
      env,
    );
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({
      id: expect.any(Number),
      name: 'Acme',
      currency: 'TRY',
    });
    // It reused the running database: the server's postmaster is still there.
    expect(existsSync(postmasterPid())).toBe(true);
  });

  it('the CLI signs private tokens with the issuer of the running server, whatever its own PORT', async () => {
    const clientId = /client_id\s+(app_[\w-]+)/.exec(server!.stdout())![1];
    const issued = await runCli(
      ['app', 'token', '--client-id', clientId, '--scopes', 'products:read', '--json'],
      { ...env, PORT: '4999' },
    );
    expect(issued.status).toBe(0);
    const { access_token } = JSON.parse(issued.stdout) as { access_token: string };
    const res = await fetch(`${server!.url}/v1/products`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(res.status).toBe(200);
  });

  it("seed demo's curl line names the running server's URL, whatever the CLI's own PORT", async () => {
    const seeded = await runCli(['seed', 'demo'], env);
    expect(seeded.status).toBe(0);
    expect(seeded.stdout).toContain(
      `curl -s -X POST http://localhost:${server!.port}/builders/oauth/token`,
    );
  });

  it('SIGTERM stops the server and the embedded database cleanly', async () => {
    server!.child.kill('SIGTERM');
    expect(await server!.exited).toBe(0);
    expect(existsSync(postmasterPid())).toBe(false);
  });

  it('the CLI works while the server does not run, and leaves no database running', async () => {
    const result = await runCli(
      ['tenant', 'create', '--name', 'Acme', '--currency', 'TRY', '--json'],
      env,
    );
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'Acme', currency: 'TRY' });
    expect(existsSync(postmasterPid())).toBe(false);
  });

  it('a product CSV imports in one command, all or nothing, with an optional stock column', async () => {
    const csv = join(dataDir, 'products.csv');
    const rows = Array.from(
      { length: 2000 },
      (_, i) => `SKU-${i},Product ${i},${(i % 500) + 0.99}`,
    );
    await writeFile(csv, ['sku,name,price', ...rows].join('\n'));
    const ok = await runCli(['product', 'import', '--tenant', '1', '--file', csv, '--json'], env);
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({
      tenant_id: 1,
      rows: 2000,
      inserted: 2000,
      updated: 0,
      unchanged: 0,
    });

    // An optional stock column: a number turns tracking on with that many, empty leaves it.
    await writeFile(csv, 'sku,name,price,stock\nSKU-1,Product 1,1.99,5\nSKU-2,Product 2,2.99,\n');
    const stocked = await runCli(
      ['product', 'import', '--tenant', '1', '--file', csv, '--json'],
      env,
    );
    expect(JSON.parse(stocked.stdout)).toEqual({
      tenant_id: 1,
      rows: 2,
      inserted: 0,
      updated: 1,
      unchanged: 1,
    });

    await writeFile(csv, 'sku,name,price,stock\nSKU-1,Renamed,1.00,1\nSKU-2,Bad,abc,-1\n');
    const bad = await runCli(['product', 'import', '--tenant', '1', '--file', csv, '--json'], env);
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ error: 'validation_failed' });
    expect(bad.stderr).toContain('line 3: price must be');
    expect(bad.stderr).toContain('line 3: stock must be');

    const created = await runCli(
      ['product', 'create', '--tenant', '1', '--sku', 'STOCKED-1', '--name', 'Stocked'].concat([
        '--price',
        '4.50',
        '--stock',
        '3',
        '--json',
      ]),
      env,
    );
    expect(created.status).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      tenant_id: 1,
      sku: 'STOCKED-1',
      price: 4.5,
      inventory: { tracked: true, available: 3 },
      version: 1,
    });
  });

  it('the CLI exits non-zero with a clear message on bad input', async () => {
    const result = await runCli(
      ['tenant', 'create', '--name', 'X', '--currency', 'XYZ', '--json'],
      env,
    );
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      error: 'validation_failed',
      error_description: 'currency must be an ISO 4217 code, got "XYZ"',
    });
    expect(result.stderr).toContain('currency must be an ISO 4217 code');
  });

  it('second start reuses the data: nothing re-seeded, nothing lost', async () => {
    server = await startServer(env);
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
    expect(server.stdout()).not.toContain('client_secret');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    const list = await runCli(['tenant', 'list', '--json'], env);
    const { tenants } = JSON.parse(list.stdout) as { tenants: Array<{ name: string }> };
    expect(tenants.map((t) => t.name)).toEqual(['Demo Store', 'Acme', 'Demo Store', 'Acme']);
  });

  it('NODE_ENV=production still starts with zero configuration, and never prints the demo secret', async () => {
    const prodDir = await mkdtemp(join(tmpdir(), 'storefront-prod-'));
    const prod = await startServer({ DATA_DIR: prodDir, DATABASE_URL: '', NODE_ENV: 'production' });
    try {
      expect((await fetch(`${prod.url}/health/ready`)).status).toBe(200);
      expect(prod.stdout()).toMatch(/client_id\s+app_[\w-]+/);
      expect(prod.stdout()).not.toMatch(/client_secret|cs_[\w-]{43}/);
      expect(prod.stdout()).toContain('app rotate-secret --client-id');
    } finally {
      prod.child.kill('SIGTERM');
      await prod.exited;
      await rm(prodDir, { recursive: true, force: true });
    }
  });
});
