/** SQLSTATE: five digits or capitals. node-postgres and TypeORM errors carry one as `code`. */
const SQLSTATE = /^[0-9A-Z]{5}$/;
const MAX_CAUSES = 3;
/**
 * node-postgres' own messages about its connection (no SQLSTATE): they name no data and tell
 * an operator what happened, so they are kept even on a database error.
 */
const CONNECTION_MESSAGE =
  /^(Connection terminated( unexpectedly| due to connection timeout)?|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|Query read timeout)$/;

export interface SafeError {
  type: string;
  message?: string;
  code?: string;
  constraint?: string;
  table?: string;
  column?: string;
  stack?: string;
  cause?: SafeError;
}

/**
 * What may be logged of an error. Database errors carry the query, its parameters (password
 * hashes, emails) and driver objects; their message and `detail` can quote row values. Of
 * those only the type, SQLSTATE, constraint, table and column are kept, with the stack's
 * frames. Used as pino's `err` serializer, so no log line can carry more, whoever logs.
 */
export function safeError(error: unknown, depth = 0): SafeError {
  if (!(error instanceof Error)) return { type: typeof error };
  const fields = error as Error & Record<string, unknown>;
  const code = typeof fields.code === 'string' ? fields.code : undefined;
  const fromDatabase =
    (code !== undefined && SQLSTATE.test(code)) ||
    'query' in fields ||
    'parameters' in fields ||
    'driverError' in fields;
  const safe: SafeError = { type: error.constructor?.name ?? error.name };
  if (code) safe.code = code;
  if (fromDatabase) {
    for (const key of ['constraint', 'table', 'column'] as const) {
      if (typeof fields[key] === 'string') safe[key] = fields[key];
    }
    if (CONNECTION_MESSAGE.test(error.message)) safe.message = error.message;
  } else {
    safe.message = error.message;
  }
  safe.stack = framesOf(error.stack);
  if (error.cause !== undefined && depth < MAX_CAUSES)
    safe.cause = safeError(error.cause, depth + 1);
  return safe;
}

/** The stack without its first line, which repeats the message. */
function framesOf(stack: string | undefined): string | undefined {
  if (!stack) return undefined;
  const frames = stack.split('\n').filter((line) => /^\s+at /.test(line));
  return frames.length > 0 ? frames.join('\n') : undefined;
}
