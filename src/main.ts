import 'reflect-metadata';
import { existsSync } from 'node:fs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import { type AppConfig, loadAppConfig } from './config/app-config.js';
import { listenFailure } from './common/listen-failure.js';
import { createLogger, stdoutDestination } from './common/logging/logger.js';
import { handleShutdownSignals } from './common/shutdown-signals.js';
import { installFaultPolicy } from './common/process-faults.js';
import { type DatabaseServer, openDatabaseServer } from './database/database-server.js';
import { createHttpApp } from './http-app.js';
import { DemoSeedService, demoBanner } from './seed/demo-seed.service.js';
import { startupFailureMessage } from './startup-failure.js';

interface Running {
  database?: DatabaseServer;
  app?: NestFastifyApplication;
}

async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const config = loadAppConfig();
  const logger = createLogger(config.LOG_LEVEL, stdoutDestination());
  installFaultPolicy(logger);

  // From the first moment: a signal during start-up waits for it to settle, then stops
  // whatever was started (an embedded database included), in order.
  const running: Running = {};
  const startup = start(config, logger, running);
  let stopping = false;
  handleShutdownSignals(async (signal) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: stopping (new connections refused, in-flight work drains)`);
    const deadline = setTimeout(() => {
      logger.error('shutdown deadline passed; exiting');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    deadline.unref();
    await startup.catch(() => undefined); // a failed start-up stops what it started itself
    await running.app?.close(); // stops accepting, waits for in-flight requests and jobs, closes the pools
    await running.database?.stop(); // last: the app no longer needs it
    logger.info('stopped');
    process.exit(0);
  });
  await startup;
}

async function start(config: AppConfig, logger: Logger, running: Running): Promise<void> {
  const database = await openDatabaseServer(config, {
    info: (m) => logger.info(m),
    warn: (m) => logger.warn(m),
  });
  running.database = database;
  let app: NestFastifyApplication | undefined;
  try {
    app = running.app = await createHttpApp({ config, databaseUrl: database.url, logger });
    await app
      .listen({ port: config.PORT, host: config.host })
      .catch((error: unknown) => Promise.reject(listenFailure(error, config.host, config.PORT)));
  } catch (error) {
    await app?.close().catch(() => undefined);
    await database.stop();
    running.app = running.database = undefined;
    throw error;
  }

  // After listening: a port in use fails before anything is seeded (the demo secret is shown
  // once). "listening on" comes last, once the banner is out.
  if (config.embeddedDatabase && config.SEED_DEMO) {
    const demo = await app.get(DemoSeedService).seedOnce();
    // Printed, not logged: logs are shipped elsewhere and must never hold a secret. In
    // production not even printed: a console there is a log too.
    if (demo) process.stdout.write(demoBanner(demo, config.publicUrl, config.NODE_ENV) + '\n');
  }
  logger.info(`listening on ${config.host}:${config.PORT}, public URL ${config.publicUrl}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${startupFailureMessage(error)}\n`);
  process.exit(1);
});
