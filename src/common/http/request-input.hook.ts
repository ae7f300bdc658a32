import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';

/** No body of this API nests deeper than 4; 32 leaves room and bounds every later walk. */
export const MAX_INPUT_DEPTH = 32;
/**
 * Values (strings, numbers, objects, array elements…) in one body or query. The largest
 * valid request, an order or import of 100 lines, has about 1,000; a 1 MiB array of zeros
 * has 500,000, and every later step (validation, its error list) would pay for each.
 */
export const MAX_INPUT_VALUES = 10_000;

type Problem = 'nul' | 'surrogate' | 'depth' | 'size' | 'key';

const MESSAGES: Record<Problem, string> = {
  nul: 'must not contain NUL characters',
  surrogate: 'must be well-formed Unicode (no lone surrogates)',
  depth: `nests deeper than ${MAX_INPUT_DEPTH} levels`,
  size: `holds more than ${MAX_INPUT_VALUES} values`,
  key: 'is not an allowed property name',
};

/** Names that reach Object.prototype when used as keys; no field of ours is called that. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Values no handler can use, refused at the edge before validation: U+0000 (PostgreSQL text
 * cannot hold it), lone UTF-16 surrogates (validators throw on them; PostgreSQL would store
 * U+FFFD instead, silently changing the data), deep nesting (recursive walks would overflow
 * the stack), too many values (validation cost and error lists grow with them),
 * prototype-named keys, and repeated query parameters. One iterative pass; paths are built
 * only for the value reported.
 */
export function requestInputCheck(request: FastifyRequest): void {
  repeatedParameterCheck(request.query);
  refuseProblem(request.params, 'path');
  refuseProblem(request.query, 'query');
  refuseProblem(request.body, 'body');
}

function refuseProblem(value: unknown, whole: 'path' | 'query' | 'body'): void {
  const error = inputProblemError(value, whole);
  if (error) throw error;
}

/** The 400 `validation_failed` for the first unusable value in `value`, else undefined. */
export function inputProblemError(
  value: unknown,
  whole: 'path' | 'query' | 'body',
): AppError | undefined {
  const found = findProblem(value);
  if (!found) return undefined;
  const field = found.field || whole;
  const message = MESSAGES[found.problem];
  return new AppError('validation_failed', `${field} ${message}`, {
    details: [{ field, message }],
  });
}

/** As many as a validation error lists. */
const MAX_LISTED = 20;
const REPEATED_MESSAGE = 'must not be repeated (a list is one comma-separated value)';

/**
 * A query parameter given twice (`?types=a&types=a`) arrives as an array. No parameter of
 * this API is read as one: the feed made one SQL arm per entry and served each event as
 * many times. Refused for every route, naming each, rather than merged: what `?limit=5&limit=50`
 * means is a guess. A list is one parameter, comma-separated (query-list.ts).
 */
function repeatedParameterCheck(query: unknown): void {
  if (query === null || typeof query !== 'object') return;
  const keys = Object.keys(query);
  const values = query as Record<string, unknown>;
  if (!keys.some((key) => Array.isArray(values[key]))) return;
  const repeated = keys.filter((key) => Array.isArray(values[key]));
  throw new AppError('validation_failed', `${repeated[0]} ${REPEATED_MESSAGE}`, {
    details: repeated.slice(0, MAX_LISTED).map((field) => ({ field, message: REPEATED_MESSAGE })),
  });
}

interface Frame {
  value: unknown;
  parent: Frame | undefined;
  /** Key or index under the parent. */
  step: string | number;
  depth: number;
}

/** The first unusable value in `root` and where it is, or undefined. */
export function findProblem(root: unknown): { field: string; problem: Problem } | undefined {
  if (root === null || typeof root !== 'object') {
    const problem = typeof root === 'string' ? stringProblem(root) : undefined;
    return problem ? { field: '', problem } : undefined;
  }
  const stack: Frame[] = [{ value: root, parent: undefined, step: '', depth: 0 }];
  let seen = 0;
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.depth >= MAX_INPUT_DEPTH) return { field: pathOf(frame), problem: 'depth' };
    const container = frame.value as Record<string, unknown> | unknown[];
    const keys = Array.isArray(container) ? undefined : Object.keys(container);
    // Counted before anything is visited: an oversized container costs nothing more.
    seen += keys ? keys.length : (container as unknown[]).length;
    if (seen > MAX_INPUT_VALUES) return { field: pathOf(frame), problem: 'size' };
    const count = keys ? keys.length : (container as unknown[]).length;
    for (let i = 0; i < count; i++) {
      const step: string | number = keys ? keys[i] : i;
      const child = keys
        ? (container as Record<string, unknown>)[keys[i]]
        : (container as unknown[])[i];
      if (keys) {
        const keyProblem = PROTOTYPE_KEYS.has(keys[i]) ? 'key' : stringProblem(keys[i]);
        if (keyProblem) return { field: pathTo(frame, step), problem: keyProblem };
      }
      if (typeof child === 'string') {
        const problem = stringProblem(child);
        if (problem) return { field: pathTo(frame, step), problem };
      } else if (child !== null && typeof child === 'object') {
        stack.push({ value: child, parent: frame, step, depth: frame.depth + 1 });
      }
    }
  }
  return undefined;
}

function stringProblem(value: string): Problem | undefined {
  if (value.includes('\u0000')) return 'nul';
  if (!(value as string & { isWellFormed(): boolean }).isWellFormed()) return 'surrogate';
  return undefined;
}

/** The path of the value at `step` under `frame` (built only for the value reported). */
function pathTo(frame: Frame, step: string | number): string {
  return pathOf({ value: undefined, parent: frame, step, depth: 0 });
}

/** `items[0].name` for the frame, walking up its parents. */
function pathOf(frame: Frame): string {
  const steps: Array<string | number> = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) steps.unshift(f.step);
  return steps.reduce<string>(
    (path, step) =>
      typeof step === 'number' ? `${path}[${step}]` : path ? `${path}.${step}` : step,
    '',
  );
}
