import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { createLogger, stdoutDestination } from './common/logging/logger.js';
import { handleShutdownSignals } from './common/shutdown-signals.js';
import { installFaultPolicy } from './common/process-faults.js';
import { PinoNestLogger } from './common/logging/pino-nest-logger.js';
import { loadAppConfig } from './config/app-config.js';
import { openDatabaseServer } from './database/database-server.js';
import { runMigrations } from './database/run-migrations.js';
import { startupFailureMessage } from './startup-failure.js';
import { WorkerModule } from './worker.module.js';

/** `npm run worker`: import workers without the HTTP API, for scaling them separately. */
async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const config = loadAppConfig({ ...process.env, WORKER: 'on' });
  const logger = createLogger(config.LOG_LEVEL, stdoutDestination());
  installFaultPolicy(logger);
  const database = await openDatabaseServer(config, {
    info: (m) => logger.info(m),
    warn: (m) => logger.warn(m),
  });
  const app = await NestFactory.createApplicationContext(
    WorkerModule.register({ config, databaseUrl: database.url }),
    {
      logger: new PinoNestLogger(logger),
    },
  );
  await runMigrations(app.get(DataSource));
  await app.init();
  logger.info('worker running');

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: finishing the jobs in hand`);
    setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_MS + 5_000).unref();
    await app.close();
    await database.stop();
    process.exit(0);
  };
  handleShutdownSignals(shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`${startupFailureMessage(error)}\n`);
  process.exit(1);
});
