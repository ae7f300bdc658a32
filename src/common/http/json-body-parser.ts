import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppError } from '../errors/app-error.js';
import { inputProblemError } from './request-input.hook.js';

type Done = (error: Error | null, body?: unknown) => void;
export type JsonBodyParser = (request: FastifyRequest, body: string | Buffer, done: Done) => void;

/**
 * The parser of JSON bodies (`application/json`, `application/merge-patch+json`): Fastify's
 * own, which refuses `__proto__` keys (and `constructor.prototype`) so no parsed object can
 * reach a prototype. Its one error cannot tell such a key from broken JSON; but
 * `{"metadata":{"__proto__":"x"}}` is valid JSON holding a name the API refuses, as
 * request-input.hook.ts refuses `constructor` and `prototype`: 400 `validation_failed`
 * naming the field, not `invalid_request`. Only a failed parse pays for finding out.
 */
export function jsonBodyParser(fastify: FastifyInstance): JsonBodyParser {
  const secure = fastify.getDefaultJsonParser('error', 'error') as unknown as JsonBodyParser;
  return (request, body, done) => {
    secure(request, body, (error, parsed) => {
      if (!error) done(null, parsed);
      else done(forbiddenKeyError(body) ?? error, undefined);
    });
  };
}

/** The validation error for a valid JSON text that holds a prototype-named key, else undefined. */
function forbiddenKeyError(text: string | Buffer): AppError | undefined {
  let value: unknown;
  try {
    // JSON.parse makes `__proto__` an own key like any other: nothing reaches a prototype.
    value = JSON.parse(text.toString());
  } catch {
    return undefined;
  }
  return inputProblemError(value, 'body');
}
