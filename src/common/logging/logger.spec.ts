import { Writable } from 'node:stream';
import { QueryFailedError } from 'typeorm';
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

  it('logs a database error without its query, parameters, message or driver object', () => {
    const out = capture();
    const logger = createLogger('info', out.stream);
    const driverError = Object.assign(
      new Error('new row violates check constraint; Failing row contains (victim@example.com)'),
      {
        code: '23514',
        constraint: 'customers_name_check',
        table: 'customers',
        detail: 'Failing row contains (1, victim@example.com, $argon2id$v=19$hash)',
      },
    );
    const error = new QueryFailedError(
      'INSERT INTO customers (email, password_hash) VALUES ($1, $2)',
      ['victim@example.com', '$argon2id$v=19$hash'],
      driverError,
    );
    logger.error({ err: new Error('wrapped', { cause: error }) }, 'unexpected error');
    const text = out.lines();
    for (const leak of ['victim@example.com', 'argon2id', 'INSERT INTO', 'Failing row']) {
      expect(text).not.toContain(leak);
    }
    const line = JSON.parse(text) as { err: { message: string; cause: Record<string, unknown> } };
    expect(line.err.message).toBe('wrapped');
    expect(line.err.cause).toMatchObject({
      type: 'QueryFailedError',
      code: '23514',
      constraint: 'customers_name_check',
      table: 'customers',
    });
  });
});
