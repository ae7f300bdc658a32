import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';

/** No body of this API nests deeper than 4; 32 leaves room and bounds every later walk. */
export const MAX_INPUT_DEPTH = 32;

type Problem = 'nul' | 'surrogate' | 'depth';

const MESSAGES: Record<Problem, string> = {
  nul: 'must not contain NUL characters',
  surrogate: 'must be well-formed Unicode (no lone surrogates)',
  depth: `nests deeper than ${MAX_INPUT_DEPTH} levels`,
};

/**
 * Values no handler can use, refused at the edge before validation: U+0000 (PostgreSQL text
 * cannot hold it), lone UTF-16 surrogates (validators throw on them; PostgreSQL would store
 * U+FFFD instead, silently changing the data) and deep nesting (recursive walks in the
 * validators and the canonical JSON hash would overflow the stack). The walk is iterative.
 */
export async function requestInputHook(
  request: FastifyRequest,
  _reply: FastifyReply,
): Promise<void> {
  for (const [value, root] of [
    [request.params, ''],
    [request.query, ''],
    [request.body, ''],
  ] as const) {
    const found = findProblem(value, root);
    if (found) {
      const field = found.field || 'body';
      const message = MESSAGES[found.problem];
      throw new AppError('validation_failed', `${field} ${message}`, {
        details: [{ field, message }],
      });
    }
  }
}

/** The first unusable value in `root` and where it is, or undefined. */
export function findProblem(
  root: unknown,
  rootPath = '',
): { field: string; problem: Problem } | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [
    { value: root, path: rootPath, depth: 0 },
  ];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = stringProblem(value);
      if (problem) return { field: path, problem };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) return { field: path, problem: 'depth' };
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push({ value: value[i], path: `${path}[${i}]`, depth: depth + 1 });
      }
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      const childPath = path ? `${path}.${key}` : key;
      const problem = stringProblem(key);
      if (problem) return { field: childPath, problem };
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return undefined;
}

function stringProblem(value: string): Problem | undefined {
  if (value.includes('\u0000')) return 'nul';
  if (!(value as string & { isWellFormed(): boolean }).isWellFormed()) return 'surrogate';
  return undefined;
}
