import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

/**
 * The last-resort policy (src/common/process-faults.ts) in a real process: an unhandled
 * rejection is logged and counted and the process goes on; an uncaught exception is logged
 * and the process exits 1. Runs the built module (dist/), as `npm start` does.
 */
async function runWithPolicy(body: string): Promise<{ code: number | null; out: string }> {
  const script = `
    import { createLogger } from './dist/src/common/logging/logger.js';
    import { installFaultPolicy, processFaults } from './dist/src/common/process-faults.js';
    installFaultPolicy(createLogger('info'));
    ${body}
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, out };
}

describe('last-resort fault policy', () => {
  it('an unhandled rejection is logged with its job id and counted; the process goes on', async () => {
    const { code, out } = await runWithPolicy(`
      void Promise.reject(Object.assign(new Error('settle failed'), { jobId: 'job-7' }));
      setTimeout(() => {
        console.log('still running, counted ' + processFaults.unhandledRejections);
        process.exit(0);
      }, 50);
    `);
    expect(code).toBe(0);
    expect(out).toContain('still running, counted 1');
    const line = JSON.parse(out.split('\n').find((l) => l.includes('unhandled promise'))!) as {
      level: number;
      jobId: string;
      err: { message: string };
    };
    expect(line).toMatchObject({ level: 50, jobId: 'job-7', err: { message: 'settle failed' } });
  });

  it('an uncaught exception is logged and the process exits 1', async () => {
    const { code, out } = await runWithPolicy(`
      setTimeout(() => { throw new Error('state half-changed'); }, 10);
      setInterval(() => {}, 1000);
    `);
    expect(code).toBe(1);
    expect(out).toMatch(/"level":60.*state half-changed.*uncaught exception: exiting/);
  });
});
