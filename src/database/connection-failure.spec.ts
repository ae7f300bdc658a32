import { describe, expect, it } from 'vitest';
import { classifyConnectionFailure, redactedUrl } from './connection-failure.js';

const failure = (message: string, code?: string) => Object.assign(new Error(message), { code });

describe('classifyConnectionFailure', () => {
  it.each([
    ['28P01', 'password authentication failed for user "x"'],
    ['28000', 'no pg_hba.conf entry for host "10.0.0.1"'],
    ['3D000', 'database "nodb" does not exist'],
    ['42501', 'permission denied for database "x"'],
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND db.example'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'],
  ])('%s is a configuration error: fails at once, with what to check', (code, message) => {
    const result = classifyConnectionFailure(failure(message, code));
    expect(result).toMatchObject({ code, reason: message, permanent: true });
    expect(result.hint).toEqual(expect.any(String));
  });

  it.each([
    ['ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'],
    ['ETIMEDOUT', 'connect ETIMEDOUT'],
    ['EAI_AGAIN', 'getaddrinfo EAI_AGAIN db'],
    ['EHOSTUNREACH', 'connect EHOSTUNREACH'],
    ['57P03', 'the database system is starting up'],
    ['53300', 'sorry, too many clients already'],
    [undefined, 'Connection terminated unexpectedly'],
  ])('%s may pass: tried again', (code, message) => {
    expect(classifyConnectionFailure(failure(message, code))).toMatchObject({
      permanent: false,
      reason: message,
    });
  });

  it('code-less configuration errors: no TLS on the server, no password', () => {
    expect(
      classifyConnectionFailure(new Error('The server does not support SSL connections')),
    ).toMatchObject({ permanent: true });
    expect(
      classifyConnectionFailure(
        new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'),
      ),
    ).toMatchObject({ permanent: true });
  });
});

describe('redactedUrl', () => {
  it('keeps where, never the password', () => {
    expect(redactedUrl('postgres://app:s3cr%40t@db:5432/shop?sslmode=require')).toBe(
      'postgres://app:***@db:5432/shop?sslmode=require',
    );
    expect(redactedUrl('postgres://app@db/shop')).toBe('postgres://app@db/shop');
    expect(redactedUrl('not a url')).not.toContain('not a url');
  });
});
