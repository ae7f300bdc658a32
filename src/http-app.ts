import { type DynamicModule, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AppModule } from './app.module.js';
import type { AppConfig } from './config/app-config.js';
import { fastifyTrustProxy } from './config/trust-proxy.js';
import { HttpErrorFilter } from './common/errors/http-error.filter.js';
import { clientErrorHandler, frameworkErrors } from './common/http/framework-errors.js';
import { closingGate, hostHeaderCheck } from './common/http/connection-guards.js';
import { httpServerFactory } from './common/http/http-server.js';
import { jsonBodyParser } from './common/http/json-body-parser.js';
import { FORM_BODY_ROUTES, mediaTypeCheck } from './common/http/media-type.hook.js';
import { requestInputCheck } from './common/http/request-input.hook.js';
import { checksHook } from './common/http/checks-hook.js';
import { requestIdFor } from './common/http/request-id.js';
import { requestLogger } from './common/logging/logger.js';
import { OneLineRequestLog } from './common/logging/one-line-request-log.js';
import { PinoNestLogger } from './common/logging/pino-nest-logger.js';
import { runMigrations } from './database/run-migrations.js';
import { BACKGROUND_DATA_SOURCE } from './database/background-transactions.js';
import { PublishedIssuerRepository } from './auth/published-issuer.repository.js';
import { Transactions } from './database/transactions.js';
import { HttpMetrics } from './metrics/http-metrics.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { serveOpenApi } from './openapi/serve.js';

const BODY_LIMIT = 1024 * 1024;
/** A token request is a few hundred bytes; a larger one is refused before it is buffered. */
const TOKEN_BODY_LIMIT = 4 * 1024;
/**
 * Longest raw (percent-encoded) path parameter: 100 characters of 4-byte UTF-8 are 1,200
 * encoded; Fastify's default of 100 answered 414 for a valid external order id.
 */
const MAX_PARAM_LENGTH = 2048;

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
    loggerInstance: requestLogger(logger),
    logController: new OneLineRequestLog(),
    genReqId: requestIdFor,
    bodyLimit: BODY_LIMIT,
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    // Slow, stuck or too many clients: timeouts and the connection cap (http-server.ts).
    serverFactory: httpServerFactory(config, logger),
    // Fastify's own 503 has its own body; closingHook answers in the error shape of
    // docs/BEHAVIOUR.md#errors.
    return503OnClosing: false,
    trustProxy: fastifyTrustProxy(config.TRUST_PROXY),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
    // No Nest middleware here (hooks and guards do that work): without middie, every request
    // runs one Fastify hook fewer. A `NestMiddleware` or `app.use()` would need it back.
    skipMiddie: true,
  });
  const fastify = adapter.getInstance();
  // JSON bodies, and PATCH of an order (RFC 7396) parsed as JSON is: json-body-parser.ts.
  const json = jsonBodyParser(fastify);
  adapter.useBodyParser('application/json', false, { bodyLimit: BODY_LIMIT }, json);
  fastify.addContentTypeParser('application/merge-patch+json', { parseAs: 'string' }, json);
  const closing = closingGate();
  fastify.addHook('onRoute', (route) => {
    if (FORM_BODY_ROUTES.has(route.url)) route.bodyLimit = TOKEN_BODY_LIMIT;
  });
  fastify.addHook(
    'onRequest',
    checksHook(
      // On the raw response so it survives every path, errors and 404s included.
      (request, reply) => reply.raw.setHeader('x-request-id', request.id),
      hostHeaderCheck,
      closing.check,
      mediaTypeCheck,
    ),
  );
  fastify.addHook('preClose', closing.start);
  fastify.addHook('preValidation', checksHook(requestInputCheck));
  const metrics = new HttpMetrics();
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.observe(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime);
    done();
  });

  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register({ config, databaseUrl, serving: true }, [
      MetricsModule.register(metrics),
      ...(imports ?? []),
    ]),
    adapter,
    { logger: new PinoNestLogger(logger), abortOnError: false },
  );
  app.useGlobalFilters(new HttpErrorFilter());
  // On the background pool: no statement deadlines there (an index build takes its time).
  await runMigrations(app.get<DataSource>(getDataSourceToken(BACKGROUND_DATA_SOURCE)));
  // The CLI signs private tokens with this issuer, so the server accepts them.
  await app
    .get(PublishedIssuerRepository)
    .publish(app.get(Transactions).db.shared(), config.publicUrl);
  serveOpenApi(app, buildOpenApiDocument(app));
  await app.init();
  await fastify.ready();
  return app;
}
