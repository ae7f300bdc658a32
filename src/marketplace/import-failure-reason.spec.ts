import { QueryFailedError } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { AppError } from '../common/errors/app-error.js';
import { publicReason } from './import-processor.service.js';

describe('publicReason', () => {
  it('keeps messages raised on purpose', () => {
    expect(publicReason(new AppError('validation_failed', 'sku is unknown'))).toBe(
      'sku is unknown',
    );
    const raised = Object.assign(new Error('warehouse refused the order'), { code: 'P0001' });
    expect(publicReason(raised)).toBe('warehouse refused the order');
  });

  it('reduces other database errors to their SQLSTATE, quoting no value', () => {
    const driver = Object.assign(new Error('value "victim@example.com" violates check'), {
      code: '23514',
    });
    const error = new QueryFailedError('INSERT ...', ['victim@example.com'], driver);
    expect(publicReason(error)).toBe('the order could not be written (database error 23514)');
  });

  it('says nothing of unexpected errors', () => {
    expect(publicReason(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(
      'the order could not be written (internal error)',
    );
  });
});
