import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { CommandFactory } from 'nest-commander';
import { pino } from 'pino';
import { DataSource } from 'typeorm';
import { isCommanderExit, strictUsage } from './admin/cli-exit-codes.js';
import { CliModule } from './admin/cli.module.js';
import { createLogger } from './common/logging/logger.js';
import { PinoNestLogger } from './common/logging/pino-nest-logger.js';
import { loadAppConfig } from './config/app-config.js';
import { openDatabaseServer } from './database/database-server.js';
import { runMigrations } from './database/run-migrations.js';
import { startupFailureMessage } from './startup-failure.js';

/**
 * `npm run -s cli -- <command>` or `npx storefront <command>`. Works on the server's database
 * whether or not the server runs: DATABASE_URL, else the embedded server in DATA_DIR (reused
 * when running, else started for the command's duration). Logs go to stderr so stdout holds
 * only the command's output.
 */
async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const config = loadAppConfig();
  const logger = createLogger(
    config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL,
    pino.destination(2),
  );
  const database = await openDatabaseServer(config, {
    info: (m) => logger.debug(m),
    warn: (m) => logger.warn(m),
  });
  try {
    const app = await CommandFactory.createWithoutRunning(
      CliModule.register({ config, databaseUrl: database.url }),
      {
        logger: new PinoNestLogger(logger),
        cliName: 'npm run cli --',
        enablePositionalOptions: true,
        serviceErrorHandler: (error: Error) => {
          // Usage errors: commander printed them (cli-exit-codes.ts). Commands report their
          // own failures (admin-command.ts); anything else is a bug, shown with its stack.
          if (isCommanderExit(error)) {
            process.exitCode = error.exitCode;
          } else {
            process.stderr.write(`${error.stack ?? error.message}\n`);
            process.exitCode = 2;
          }
        },
      },
    );
    strictUsage(app);
    await runMigrations(app.get(DataSource));
    await CommandFactory.runApplication(app);
    await app.close();
  } finally {
    await database.stop();
  }
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${startupFailureMessage(error)}\n`);
    process.exitCode = 1;
  })
  // Explicit: open handles (a pool's idle timer, the progress bar) must not keep it running.
  .finally(() => process.exit(process.exitCode ?? 0));
