import {
  QueryFailedError,
  QueryRunnerAlreadyReleasedError,
  QueryRunnerProviderAlreadyReleasedError,
} from 'typeorm';
import { describe, expect, it } from 'vitest';
import { UnitOfWorkEndedError } from '../../database/transactions.js';
import { toErrorResponse } from './error-response.js';

const driver = (message: string, code?: string) =>
  new QueryFailedError('SELECT 1', [], Object.assign(new Error(message), code ? { code } : {}));

describe('toErrorResponse: the database being away is 503 unavailable, whatever layer saw it', () => {
  it.each([
    ['a unit whose connection the server ended', new QueryRunnerAlreadyReleasedError()],
    ['its manager after that', new QueryRunnerProviderAlreadyReleasedError()],
    [
      'a client handed out after its server ended it',
      driver('Client has encountered a connection error and is not queryable'),
    ],
    ['a connection ended mid-query', driver('Connection terminated unexpectedly')],
    [
      'an administrator shutdown (57P01)',
      driver('terminating connection due to administrator command', '57P01'),
    ],
    ['the server starting up (57P03)', driver('the database system is starting up', '57P03')],
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    ],
    ['no connection free in time', new Error('timeout exceeded when trying to connect')],
    [
      'an unreachable host',
      Object.assign(new Error('connect EHOSTUNREACH'), { code: 'EHOSTUNREACH' }),
    ],
    ['too many connections (53300)', driver('sorry, too many clients already', '53300')],
  ])('%s', (_, error) => {
    const response = toErrorResponse(error, 'req-1');
    expect(response.status).toBe(503);
    expect(response.body.error).toBe('unavailable');
    expect(response.headers['retry-after']).toBe('5');
    expect(response.unexpected).toBe(false);
  });

  it('a statement cancelled at its deadline (57014) is 503 with Retry-After, saying what to do', () => {
    const response = toErrorResponse(
      driver('canceling statement due to statement timeout', '57014'),
      'r',
    );
    expect(response.status).toBe(503);
    expect(response.body).toEqual({
      error: 'unavailable',
      error_description: expect.stringContaining('deadline') as string,
    });
    expect(response.headers['retry-after']).toBe('5');
  });

  it.each([
    ['a deadlock (40P01)', driver('deadlock detected', '40P01')],
    ['a serialization failure (40001)', driver('could not serialize access', '40001')],
  ])('%s is 503 with Retry-After 1, and logged as unexpected', (_, error) => {
    const response = toErrorResponse(error, 'r');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({
      error: 'unavailable',
      error_description: expect.stringContaining('retry') as string,
    });
    expect(response.headers['retry-after']).toBe('1');
    expect(response.unexpected).toBe(true);
  });

  it('work of ours that outlived its unit of work stays a loud 500', () => {
    const response = toErrorResponse(new UnitOfWorkEndedError(), 'req-2');
    expect(response.status).toBe(500);
    expect(response.unexpected).toBe(true);
    expect(response.body).toEqual({
      error: 'internal_error',
      error_description: 'An unexpected error occurred',
      request_id: 'req-2',
    });
  });
});
