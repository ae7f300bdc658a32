import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { ApiParamOptions } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';

/** A path id: a positive integer in plain digits ("1e3", "1.0", "01x" are refused), else 400. */
export function parseId(raw: unknown, field = 'id'): number {
  const id = typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(id) || id < 1) {
    throw new AppError('validation_failed', `${field} must be a positive integer`, {
      details: [{ field, message: 'must be a positive integer' }],
    });
  }
  return id;
}

/**
 * The raw `:id` path parameter, parsed strictly. A custom decorator on purpose: the global
 * ValidationPipe converts `@Param() id: number` with `+value` first, turning "1e3" into 1000.
 * Document the route with `@ApiParam(ID_PARAM)`.
 */
export const IdParam = createParamDecorator((_data: unknown, execution: ExecutionContext): number =>
  parseId(
    execution.switchToHttp().getRequest<FastifyRequest<{ Params: { id?: string } }>>().params.id,
  ),
);

export const ID_PARAM: ApiParamOptions = { name: 'id', schema: { type: 'integer', minimum: 1 } };
