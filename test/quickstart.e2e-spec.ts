import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureBuilt,
  processBudget,
  runCliJson,
  sharedInstanceEnv,
  startServer,
  type ServerProcess,
} from './support/processes.js';

/** The README's one-line command for the TypeScript quickstart (examples/quickstart.ts). */
const COMMAND = 'CLIENT_ID=app_… CLIENT_SECRET=cs_… npm run -s quickstart';

/**
 * The TypeScript quickstart as the README tells a newcomer to run it: the command it shows,
 * against a running server with the demo data, prints each step and ends 0.
 */
// npm, then the example.
describe(
  'the TypeScript quickstart (examples/quickstart.ts)',
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
        'shipped 1 × TSHIRT-BLK-M by UPS 1Z999AA10123456784; refunded 19.99 USD; order preparing, partial, refunded 19.99 of 39.98, version 4',
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
