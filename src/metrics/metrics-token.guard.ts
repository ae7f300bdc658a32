import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../common/errors/app-error.js';
import { AppConfig } from '../config/app-config.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * With METRICS_TOKEN set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`
 * (compared in constant time); unset, it is open (docs/BEHAVIOUR.md#operations).
 */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  private readonly expected?: Buffer;

  constructor(config: AppConfig) {
    this.expected = config.METRICS_TOKEN === undefined ? undefined : digest(config.METRICS_TOKEN);
  }

  canActivate(execution: ExecutionContext): boolean {
    if (!this.expected) return true;
    const header = execution.switchToHttp().getRequest<FastifyRequest>().headers.authorization;
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
    if (presented !== undefined && timingSafeEqual(digest(presented), this.expected)) return true;
    throw new AppError('unauthenticated', 'GET /metrics needs the metrics bearer token', {
      headers: {
        'www-authenticate':
          presented === undefined
            ? 'Bearer realm="metrics"'
            : 'Bearer realm="metrics", error="invalid_token"',
      },
    });
  }
}
