import { Injectable, type PipeTransform } from '@nestjs/common';
import { AppError } from '../errors/app-error.js';

/** A path id: a positive integer in digits, else 400 validation_failed (not 404). */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    const id = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(id) || id < 1) {
      throw new AppError('validation_failed', 'id must be a positive integer', {
        details: [{ field: 'id', message: 'must be a positive integer' }],
      });
    }
    return id;
  }
}
