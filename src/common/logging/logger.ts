import { pino, type Logger, type DestinationStream } from 'pino';
import type { LogLevel } from '../../config/app-config.js';
import { safeError } from './safe-error.js';

/** Header and body fields that may carry a credential; pino replaces them with "[redacted]". */
const SECRET_FIELDS = [
  'password',
  'client_secret',
  'token',
  'access_token',
  'secret',
  'authorization',
];
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`]),
];

/** Query parameters that may carry a credential in a URL (never accepted, but never logged). */
const SECRET_QUERY = /([?&](?:access_token|token|client_secret|password)=)[^&]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: {
        req: (req: { method: string; url: string; ip?: string; id?: string }) => ({
          method: req.method,
          url: redactUrl(req.url),
          remoteAddress: req.ip,
        }),
        // Never the query, its parameters or a driver object (safe-error.ts).
        err: safeError,
      },
    },
    destination,
  );
}
