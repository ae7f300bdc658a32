import { createServer, type Server } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { databaseUrlFor } from './support/database-url.js';
import {
  ensureBuilt,
  processBudget,
  runCli,
  runNode,
  sharedInstanceEnv,
} from './support/processes.js';

/** A stack trace line: none may reach a newcomer for a mistake of configuration. */
const STACK = /\n\s+at /;

/**
 * Mistakes a newcomer makes (a wrong password or database name in DATABASE_URL, a port already
 * taken, a mistyped CLI command): the process ends at once, non-zero, saying what is wrong and
 * what to change, without a stack trace.
 */
// A test starts up to four processes at once.
describe('start-up failures that name their cause', { timeout: processBudget(4) }, () => {
  let env: Record<string, string>;

  beforeAll(async () => {
    ensureBuilt();
    env = { ...(await sharedInstanceEnv('http://localhost:3000')), LOG_LEVEL: 'warn' };
  });

  it('a wrong password in DATABASE_URL: exit 1 at once with 28P01, the password never shown', async () => {
    const url = new URL(env.DATABASE_URL);
    url.password = 'not-the-password';
    const scripts = ['dist/src/main.js', 'dist/src/worker.js', 'dist/src/cli.js'];
    const started = performance.now();
    const results = await Promise.all(
      scripts.map((script) =>
        runNode(script, script.endsWith('cli.js') ? ['tenant', 'list'] : [], {
          ...env,
          DATABASE_URL: url.toString(),
        }),
      ),
    );
    // At once: no retry round (a server that is not answering yet is waited for 30 s).
    expect(performance.now() - started).toBeLessThan(25_000);
    for (const result of results) {
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('password authentication failed');
      expect(result.stderr).toContain('(28P01); check the user name and password in DATABASE_URL');
      expect(result.stderr + result.stdout).not.toContain('not-the-password');
      expect(result.stderr).not.toMatch(STACK);
    }
  });

  it('an unknown database: exit 1 with 3D000', async () => {
    const result = await runNode('dist/src/main.js', [], {
      ...env,
      DATABASE_URL: databaseUrlFor(inject('serverUrl'), 'no_such_database'),
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('database "no_such_database" does not exist (3D000)');
    expect(result.stderr).not.toMatch(STACK);
  });

  describe('a port already taken', () => {
    let holder: Server;
    let port: number;

    beforeAll(async () => {
      holder = createServer().listen(0, '127.0.0.1');
      await once(holder, 'listening');
      port = (holder.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

    it('exit 1 naming the port and PORT, no stack trace', async () => {
      const result = await runNode('dist/src/main.js', [], {
        ...env,
        HOST: '127.0.0.1',
        PORT: String(port),
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(
        `port ${port} is already in use on 127.0.0.1 (EADDRINUSE): stop the process that holds it, or start on another port, e.g. PORT=3000 npm start`,
      );
      expect(result.stderr + result.stdout).not.toMatch(STACK);
    });
  });

  it('the CLI: an unknown command or subcommand, or a group without one, exits non-zero', async () => {
    const cliEnv = { DATABASE_URL: env.DATABASE_URL, LOG_LEVEL: 'warn' };
    const [unknown, unknownSub, group, help] = await Promise.all([
      runCli(['tenants', 'list'], cliEnv),
      runCli(['tenant', 'lsit', '--json'], cliEnv),
      runCli(['tenant'], cliEnv),
      runCli(['tenant', '--help'], cliEnv),
    ]);
    expect(unknown).toMatchObject({ status: 1, stdout: '' });
    expect(unknown.stderr).toContain("error: unknown command 'tenants'\n(Did you mean tenant?)");
    expect(unknownSub).toMatchObject({ status: 1, stdout: '' });
    expect(unknownSub.stderr).toContain("error: unknown command 'lsit'\n(Did you mean list?)");
    // Its help, on stderr: stdout stays for a command's output.
    expect(group).toMatchObject({ status: 1, stdout: '' });
    expect(group.stderr).toContain('create [options]  create a tenant');
    // Asked for, help is the output, and not an error.
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('create [options]  create a tenant');
  });

  it('the CLI: arguments a command does not take are an error (exit 1, a message naming them)', async () => {
    const cliEnv = { DATABASE_URL: env.DATABASE_URL, LOG_LEVEL: 'warn' };
    // A usage line pasted with its brackets: `[--stock` and `5]` are no option.
    const pasted = await runCli(
      [
        'product',
        'create',
        '--tenant',
        '1',
        '--sku',
        'PASTED',
        '--name',
        'P',
        '--price',
        '1',
      ].concat(['[--stock', '5]', '--json']),
      cliEnv,
    );
    expect(pasted).toMatchObject({ status: 1, stdout: '' });
    expect(pasted.stderr).toContain(
      "error: unexpected arguments '[--stock' '5]' for 'product create' (it takes options only; " +
        'in a usage line, [ ] marks an optional part and is not typed)',
    );
    const extra = await runCli(['tenant', 'list', 'all', '--json'], cliEnv);
    expect(extra).toMatchObject({ status: 1, stdout: '' });
    expect(extra.stderr).toContain(
      "error: unexpected argument 'all' for 'tenant list' (it takes options only)",
    );
  });
});
