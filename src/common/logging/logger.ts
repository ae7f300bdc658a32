import { pino, type Logger, type DestinationStream } from 'pino';
import type { LogLevel } from '../../config/app-config.js';
import { safeError } from './safe-error.js';

/** Header and body fields that may carry a credential; pino replaces them with "[redacted]". */
const SECRET_FIELDS = [
  'password',
  'client_secret',
  'token',
  'access_token',
  'refresh_token',
  'secret',
  'authorization',
  'cookie',
  'idempotency-key',
];
/**
 * For the application's own log calls, which may pass any object. Wildcard paths are the
 * costly part (~10 µs a line: every value is cloned and walked), affordable off the hot
 * path; request lines go through `requestLogger` instead.
 */
const REDACT_PATHS = SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`]);
const CENSOR = '[redacted]';

/**
 * The path and the query's parameter names, never their values: a value may be a credential
 * (`access_token`, never accepted but sometimes sent) or personal data (the order list's
 * `email` filter, a cursor that carries it). `/v1/orders?email=[redacted]&status=[redacted]`.
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const names = url
    .slice(start + 1)
    .split('&')
    .filter((part) => part.length > 0)
    .map((part) => {
      const equals = part.indexOf('=');
      return equals === -1 ? part : `${part.slice(0, equals)}=[redacted]`;
    });
  return names.length === 0 ? url.slice(0, start) : `${url.slice(0, start)}?${names.join('&')}`;
}

/**
 * Standard output in blocks: lines collect until 4 KiB are waiting (about a dozen request
 * lines), or for at most 100 ms, and go out in one write. Under load a write per line cost
 * 7–15 µs of the service's CPU per request and woke the reader as often (docs/BENCHMARKS.md).
 * pino writes out what is still waiting when the process exits (a second shutdown signal
 * exits too: shutdown-signals.ts); a SIGKILL, or a crash that skips exit handlers, loses what
 * is still waiting: the last 100 ms of lines while stdout keeps up, more if its reader stalls.
 *
 * Each line goes to sonic-boom as a Buffer (its buffer mode): in its string mode every line
 * is appended to the block waiting so far and the block's byte length measured again, which
 * copies the whole block per line (kilobytes of garbage per request under load).
 */
export function stdoutDestination(): DestinationStream {
  const boom = pino.destination({
    dest: 1,
    sync: false,
    minLength: 4096,
    periodicFlush: 100,
    contentMode: 'buffer',
  });
  // Looked up on every line: pino swaps in a no-op `write` once stdout's reader is gone (EPIPE).
  const target = boom as unknown as { write(data: Buffer): boolean };
  return {
    write: (line: string) => target.write(Buffer.from(line)),
    flush: (callback?: (error?: Error) => void) => boom.flush(callback),
    flushSync: () => boom.flushSync(),
  } as DestinationStream;
}

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: CENSOR },
      serializers: {
        // Only these fields: never headers (Authorization, Idempotency-Key, cookies) nor the
        // query's values, whoever logs a request.
        req: (req: { method: string; url: string; ip?: string }) => ({
          method: req.method,
          url: redactUrl(req.url),
          remoteAddress: req.ip,
        }),
        res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
        // Never the query, its parameters or a driver object (safe-error.ts).
        err: safeError,
      },
    },
    destination,
  );
}

/**
 * The logger Fastify writes with (a child per request, and the request line). Its lines hold
 * only what the serializers above emit, so the wildcard paths are dropped (~12 µs → ~1.5 µs a
 * request); a secret field at the top level of a line is still censored.
 */
export function requestLogger(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: SECRET_FIELDS, censor: CENSOR } });
}
