import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/database/free-port.js';
import {
  ensureBuilt,
  processBudget,
  runCliJson,
  sharedInstanceEnv,
  startServer,
  type ServerProcess,
} from './support/processes.js';

/** The README's curl quickstart: the first shell block after its heading. */
async function curlQuickstart(): Promise<string> {
  const readme = await readFile('README.md', 'utf8');
  return /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Quickstart')))![1];
}

/** Runs `script` in bash with `env`, node from the line this suite runs on. */
async function bash(script: string, env: Record<string, string>) {
  const child = spawn('bash', ['-c', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/** The README's one-line command for the TypeScript quickstart (examples/quickstart.ts). */
const COMMAND = 'CLIENT_ID=app_… CLIENT_SECRET=cs_… npm run -s quickstart';

/**
 * The quickstarts as the README tells a newcomer to run them, against a running server with the
 * demo data: the curl walk (and its `json` helper's failures), and the TypeScript one's command.
 */
// npm, then the example.
describe(
  "the README's quickstarts (curl, and examples/quickstart.ts)",
  { timeout: processBudget(2) },
  () => {
    let server: ServerProcess;
    let demo: { client_id: string; client_secret: string };

    beforeAll(async () => {
      ensureBuilt();
      const env = await sharedInstanceEnv('http://localhost:3000');
      server = await startServer(env);
      demo = (await runCliJson(['seed', 'demo'], env)) as typeof demo;
    });
    afterAll(async () => {
      server.child.kill('SIGTERM');
      await server.exited;
    });

    it('the curl walk runs as written, every call answered', async () => {
      // Its own placeholders are the demo app's and this server's.
      const walk = (await curlQuickstart()).replace(/^(CLIENT_ID|CLIENT_SECRET|API)=.*\n/gm, '');
      const run = await bash(`set -eo pipefail\n${walk}`, {
        CLIENT_ID: demo.client_id,
        CLIENT_SECRET: demo.client_secret,
        API: server.url,
      });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      const ownOrders = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { data: unknown[] };
      expect(ownOrders.data).toHaveLength(1);
    });

    describe("its json helper fails at the first call, with the service's own error", () => {
      let tokenStep: string;
      beforeAll(async () => {
        tokenStep = /^json\(\) \{[\s\S]*?\| json \.access_token\)$/m.exec(
          await curlQuickstart(),
        )![0];
      });
      const afterIt = '\necho "status $? token [$TOKEN]"';

      it('a refused token request: the error body on stderr, status 1, no token', async () => {
        const run = await bash(tokenStep + afterIt, {
          CLIENT_ID: demo.client_id,
          CLIENT_SECRET: 'cs_not-the-secret',
          API: server.url,
        });
        expect(run.stdout).toBe('status 1 token []\n');
        expect(JSON.parse(run.stderr)).toMatchObject({ error: 'invalid_client' });
      });

      it("the server down: curl's one line, status 1, no stack trace", async () => {
        const run = await bash(tokenStep + afterIt, {
          CLIENT_ID: demo.client_id,
          CLIENT_SECRET: demo.client_secret,
          API: `http://127.0.0.1:${await freePort()}`,
        });
        expect(run.stdout).toBe('status 1 token []\n');
        expect(run.stderr).toMatch(/^curl: \(7\) .*\n$/);
      });
    });

    it('is in the README as one command', async () => {
      expect(await readFile('README.md', 'utf8')).toContain(COMMAND);
    });

    it('runs with that command against the demo data, printing every step', async () => {
      const [, ...words] = COMMAND.split(' ').slice(2); // npm run -s quickstart
      const child = spawn('npm', words, {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
          CLIENT_ID: demo.client_id,
          CLIENT_SECRET: demo.client_secret,
          API: server.url,
        },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const [code] = (await once(child, 'close')) as [number | null];
      expect({ code, stderr: stderr.replace(/^npm warn .*\n/gm, '') }).toEqual({
        code: 0,
        stderr: '',
      });
      const lines = stdout.trim().split('\n');
      expect(lines).toEqual([
        expect.stringMatching(/^products: 5; ordering 2 × TSHIRT-BLK-M \(19\.99\)$/),
        expect.stringMatching(/^order \d+: pending, 39\.98 USD$/),
        'shipped 1 × TSHIRT-BLK-M by UPS 1Z999AA10123456784; refunded 19.99 USD; order shipped, fulfilled, refunded 19.99 of 39.98, version 4',
        expect.stringMatching(
          /^customer \d+ \(ada-\w+@example\.com\): registered, verified, logged in$/,
        ),
        expect.stringMatching(/^the customer's own orders: \d+$/),
      ]);
      const orderId = /^order (\d+)/.exec(lines[1])![1];
      expect(lines[4]).toBe(`the customer's own orders: ${orderId}`);
    });
  },
);
