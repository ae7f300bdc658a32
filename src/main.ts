import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { ConfigError, loadAppConfig } from './config/app-config.js';
import { createLogger, stdoutDestination } from './common/logging/logger.js';
import { handleShutdownSignals } from './common/shutdown-signals.js';
import { installFaultPolicy } from './common/process-faults.js';
import { openDatabaseServer } from './database/database-server.js';
import { createHttpApp } from './http-app.js';
import { DemoSeedService, demoBanner } from './seed/demo-seed.service.js';

async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const config = loadAppConfig();
  const logger = createLogger(config.LOG_LEVEL, stdoutDestination());
  installFaultPolicy(logger);
  const database = await openDatabaseServer(config, (m) => logger.info(m));
  const app = await createHttpApp({ config, databaseUrl: database.url, logger }).catch(
    async (e: unknown) => {
      await database.stop();
      throw e;
    },
  );

  if (config.embeddedDatabase && config.SEED_DEMO) {
    const demo = await app.get(DemoSeedService).seedOnce();
    // Printed, not logged: logs are shipped elsewhere and must never hold a secret. In
    // production not even printed: a console there is a log too.
    if (demo) process.stdout.write(demoBanner(demo, config.publicUrl, config.NODE_ENV) + '\n');
  }

  await app.listen({ port: config.PORT, host: config.host });
  logger.info(`listening on ${config.host}:${config.PORT}, public URL ${config.publicUrl}`);

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: stopping (new connections refused, in-flight work drains)`);
    const deadline = setTimeout(() => {
      logger.error('shutdown deadline passed; exiting');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    deadline.unref();
    await app.close(); // stops accepting, waits for in-flight requests, closes the pool
    await database.stop();
    logger.info('stopped');
    process.exit(0);
  };
  handleShutdownSignals(shutdown);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(
      `start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
