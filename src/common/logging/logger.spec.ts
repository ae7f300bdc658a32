import { Writable } from 'node:stream';
import { QueryFailedError } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { createLogger, redactUrl, requestLogger } from './logger.js';

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
        body: {
          client_secret: 'cs_topsecret',
          access_token: 'at_secret',
          token: 'tok_secret',
          refresh_token: 'rt_secret',
        },
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
      'rt_secret',
      'deep-password',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
  });

  it('logs the path and the query parameter names, never their values', () => {
    expect(redactUrl('/v1/orders?access_token=abc&page=2')).toBe(
      '/v1/orders?access_token=[redacted]&page=[redacted]',
    );
    expect(redactUrl('/x?page=1&client_secret=s&token=t')).toBe(
      '/x?page=[redacted]&client_secret=[redacted]&token=[redacted]',
    );
    expect(
      redactUrl('/v1/orders?email=Ada%40Example.com&status=paid,shipped&cursor=eyJ2IjoxfQ'),
    ).toBe('/v1/orders?email=[redacted]&status=[redacted]&cursor=[redacted]');
    expect(redactUrl('/v1/orders?email=a=b@c.d&&flag&=x')).toBe(
      '/v1/orders?email=[redacted]&flag&=[redacted]',
    );
    expect(redactUrl('/v1/orders')).toBe('/v1/orders');
    expect(redactUrl('/v1/orders?')).toBe('/v1/orders');
  });

  it('writes no query value into a request log line', () => {
    const out = capture();
    const logger = createLogger('info', out.stream);
    logger.info(
      {
        req: { method: 'GET', url: '/v1/orders?email=victim%40example.com&customer_id=918273645' },
      },
      'request',
    );
    const text = out.lines();
    expect(text).not.toContain('victim');
    expect(text).not.toContain('918273645');
    expect(JSON.parse(text).req.url).toBe('/v1/orders?email=[redacted]&customer_id=[redacted]');
  });

  it('the request logger writes only the serialized request fields, and censors a top-level secret', () => {
    const out = capture();
    const logger = requestLogger(createLogger('info', out.stream)).child({ reqId: 'r-1' });
    logger.info(
      {
        req: {
          method: 'POST',
          url: '/v1/orders?email=victim%40example.com',
          ip: '10.0.0.7',
          headers: { authorization: 'Bearer eyJsecret', 'idempotency-key': 'idem-secret' },
          body: { password: 'hunter2-password' },
        },
        res: { statusCode: 201, headers: { 'set-cookie': 'sid=cookie-secret' } },
        responseTime: 12.5,
        token: 'tok_secret',
      },
      'request completed',
    );
    const text = out.lines();
    for (const secret of [
      'eyJsecret',
      'idem-secret',
      'hunter2',
      'victim',
      'cookie-secret',
      'tok_secret',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(JSON.parse(text)).toMatchObject({
      reqId: 'r-1',
      req: { method: 'POST', url: '/v1/orders?email=[redacted]', remoteAddress: '10.0.0.7' },
      res: { statusCode: 201 },
      responseTime: 12.5,
      token: '[redacted]',
    });
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

  it('keeps node-postgres connection messages of a database error (they name no data), nothing else', () => {
    const out = capture();
    const logger = createLogger('info', out.stream);
    const lost = new QueryFailedError(
      'SELECT * FROM customers WHERE email = $1',
      ['victim@example.com'],
      new Error('Client has encountered a connection error and is not queryable'),
    );
    logger.error({ err: lost }, 'unexpected error');
    const text = out.lines();
    expect(text).not.toContain('victim@example.com');
    expect(text).not.toContain('SELECT');
    const line = JSON.parse(text) as { err: { message?: string } };
    expect(line.err.message).toBe('Client has encountered a connection error and is not queryable');
  });
});
