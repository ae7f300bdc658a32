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
