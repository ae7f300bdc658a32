import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';

/**
 * PostgreSQL text cannot hold U+0000, so a NUL anywhere in the body, path or query would
 * fail deep in a query. Refused at the edge with the field that carries it.
 */
export async function nulCharacterHook(
  request: FastifyRequest,
  _reply: FastifyReply,
): Promise<void> {
  const field =
    findNul(request.params, '') ?? findNul(request.query, '') ?? findNul(request.body, '');
  if (field !== undefined) {
    const name = field || 'body';
    throw new AppError('validation_failed', `${name} must not contain NUL characters`, {
      details: [{ field: name, message: 'must not contain NUL characters' }],
    });
  }
}

function findNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const childPath = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) return childPath;
      const found = findNul(child, childPath);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
