import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactUrl } from './logger.js';

function capture(): { stream: Writable; lines: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, lines: () => chunks.join('') };
}

describe('logger redaction', () => {
  it('never writes credentials from headers, bodies or nested objects', () => {
    const out = capture();
    const logger = createLogger('info', out.stream);
    logger.info(
      {
        req: { method: 'POST', url: '/x', headers: { authorization: 'Bearer eyJsecret' } },
        password: 'hunter2-password',
        body: { client_secret: 'cs_topsecret', access_token: 'at_secret', token: 'tok_secret' },
        nested: { deeper: { password: 'deep-password' } },
      },
      'request',
    );
    const text = out.lines();
    for (const secret of [
      'eyJsecret',
      'hunter2-password',
      'cs_topsecret',
      'at_secret',
      'tok_secret',
      'deep-password',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
  });

  it('strips credentials from logged URLs', () => {
    expect(redactUrl('/v1/orders?access_token=abc&page=2')).toBe(
      '/v1/orders?access_token=[redacted]&page=2',
    );
    expect(redactUrl('/x?page=1&client_secret=s&token=t')).toBe(
      '/x?page=1&client_secret=[redacted]&token=[redacted]',
    );
  });
});
