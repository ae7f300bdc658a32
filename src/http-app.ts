import { createServer, type RequestListener } from 'node:http';
import { type DynamicModule, type Type, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AppModule } from './app.module.js';
import type { AppConfig } from './config/app-config.js';
import { HttpErrorFilter } from './common/errors/http-error.filter.js';
import { validationFailed } from './common/errors/validation-error.factory.js';
import { mediaTypeHook } from './common/http/media-type.hook.js';
import { nulCharacterHook } from './common/http/nul-character.hook.js';
import { requestIdFor } from './common/http/request-id.js';
import { PinoNestLogger } from './common/logging/pino-nest-logger.js';
import { runMigrations } from './database/run-migrations.js';
import { HttpMetrics } from './metrics/http-metrics.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { buildOpenApiDocument, serveOpenApi } from './openapi.js';

const BODY_LIMIT = 1024 * 1024;

export interface HttpAppOptions {
  config: AppConfig;
  databaseUrl: string;
  logger: Logger;
  /** Extra modules (tests mount probe routes with it). */
  imports?: Array<Type | DynamicModule>;
}

/**
 * The configured HTTP application, migrated and initialised but not listening.
 * `main.ts` listens on it; e2e tests drive it in-process.
 */
export async function createHttpApp({
  config,
  databaseUrl,
  logger,
  imports,
}: HttpAppOptions): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    genReqId: requestIdFor,
    bodyLimit: BODY_LIMIT,
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    connectionTimeout: config.REQUEST_TIMEOUT_MS,
    // Slow or stuck clients: headers must arrive within 10 s (or the request timeout if
    // shorter), the whole request within REQUEST_TIMEOUT_MS; Node checks every second.
    serverFactory: (handler: RequestListener) =>
      createServer(
        {
          headersTimeout: Math.min(10_000, config.REQUEST_TIMEOUT_MS),
          requestTimeout: config.REQUEST_TIMEOUT_MS,
          connectionsCheckingInterval: 1_000,
        },
        handler,
      ),
    return503OnClosing: true,
    trustProxy: config.TRUST_PROXY,
  });
  const fastify = adapter.getInstance();
  // On the raw response so it survives every path, errors and 404s included.
  fastify.addHook('onRequest', async (request, reply) => {
    reply.raw.setHeader('x-request-id', request.id);
  });
  fastify.addHook('onRequest', mediaTypeHook);
  fastify.addHook('preValidation', nulCharacterHook);
  const metrics = new HttpMetrics();
  fastify.addHook('onResponse', async (request, reply) => {
    metrics.observe(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime);
  });

  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register({ config, databaseUrl }, [
      MetricsModule.register(metrics),
      ...(imports ?? []),
    ]),
    adapter,
    { logger: new PinoNestLogger(logger), abortOnError: false },
  );
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalPipes(
    new ValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      exceptionFactory: validationFailed,
      validationError: { target: false, value: false },
    }),
  );
  await runMigrations(app.get(DataSource));
  serveOpenApi(app, buildOpenApiDocument(app, config.publicUrl));
  await app.init();
  await fastify.ready();
  return app;
}
