import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

/**
 * A child process logging through the service's stdout destination (blocks of 4 KiB, lines
 * handed to sonic-boom as Buffers), then ending as the service can: its event loop drains,
 * or `process.exit` right after the last line. Every line must arrive whole and in order.
 */
const PREFIX = 'ğüşı ✓ 日本 ';

async function linesWritten(ending: 'drain' | 'exit'): Promise<string[]> {
  const script = `
    const { createLogger, stdoutDestination } = await import('./dist/src/common/logging/logger.js');
    const logger = createLogger('info', stdoutDestination());
    for (let i = 0; i < 3000; i++) logger.info({ i, text: ${JSON.stringify(PREFIX)} + 'x'.repeat(i % 7 === 0 ? 9000 : 20) }, 'line');
    ${ending === 'exit' ? 'process.exit(0);' : ''}
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(code).toBe(0);
  return Buffer.concat(chunks).toString('utf8').split('\n').filter(Boolean);
}

describe('the stdout destination', () => {
  for (const ending of ['drain', 'exit'] as const) {
    it(`delivers every line whole and in order when the process ends (${ending})`, async () => {
      const lines = await linesWritten(ending);
      expect(lines).toHaveLength(3000);
      lines.forEach((line, i) => {
        const entry = JSON.parse(line) as { i: number; text: string; msg: string };
        expect(entry.i).toBe(i);
        expect(entry.msg).toBe('line');
        expect(entry.text).toBe(PREFIX + 'x'.repeat(i % 7 === 0 ? 9000 : 20));
      });
    });
  }
});
