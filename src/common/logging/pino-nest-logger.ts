import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

const BOOT_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
]);

/**
 * Nest's logger interface on top of the same pino instance Fastify logs requests with,
 * so every line is one JSON object. `logger.error({ err }, 'msg')` keeps the object.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    const context = rest.at(-1);
    // Nest's boot chatter (every module and route) is debug detail, not news.
    const chatter = typeof context === 'string' && BOOT_CONTEXTS.has(context);
    this.write(chatter ? 'debug' : 'info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  /** Nest passes the context (class name) last; an object first is merged into the line. */
  private write(
    level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal',
    message: unknown,
    rest: unknown[],
  ): void {
    const context = typeof rest.at(-1) === 'string' ? (rest.at(-1) as string) : undefined;
    const text = rest.find((r, i) => typeof r === 'string' && i < rest.length - 1);
    if (message !== null && typeof message === 'object') {
      this.pino[level]({ context, ...message }, typeof text === 'string' ? text : undefined);
    } else {
      this.pino[level]({ context }, String(message));
    }
  }
}
