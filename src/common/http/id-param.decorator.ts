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
 * A raw path id parameter (`:id` unless named), parsed strictly. A custom decorator on
 * purpose: a ValidationPipe converts `@Param() id: number` with `+value` first,
 * turning "1e3" into 1000. Document the route with `@ApiParam(ID_PARAM)` / `idParam(name)`.
 */
export const IdParam = createParamDecorator(
  (name: string | undefined, execution: ExecutionContext): number =>
    parseId(
      execution.switchToHttp().getRequest<FastifyRequest<{ Params: Record<string, string> }>>()
        .params[name ?? 'id'],
      name ?? 'id',
    ),
);

export const idParam = (name: string): ApiParamOptions => ({
  name,
  schema: { type: 'integer', minimum: 1 },
});

export const ID_PARAM: ApiParamOptions = idParam('id');
