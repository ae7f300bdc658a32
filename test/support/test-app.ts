import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamicModule, Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DestinationStream } from 'pino';
import supertest from 'supertest';
import type TestAgent from 'supertest/lib/agent.js';
import { DataSource } from 'typeorm';
import { createLogger } from '../../src/common/logging/logger.js';
import { loadAppConfig, type AppConfig } from '../../src/config/app-config.js';
import { createHttpApp } from '../../src/http-app.js';
import { createTestDatabase } from './test-database.js';
import { inspectionDataSource } from './inspection-data-source.js';

export interface TestApp {
  app: NestFastifyApplication;
  http: TestAgent;
  /**
   * For the spec's own statements (inspecting or arranging rows of any tenant): a small pool
   * of plain connections beside the app's, outside the statement audit that guards every
   * connection of the service. The app's own DataSource is `app.get(DataSource)`.
   */
  dataSource: DataSource;
  config: AppConfig;
  databaseUrl: string;
  close(): Promise<void>;
}

/** The real HTTP application on its own cloned database, served in-process. */
export async function createTestApp(
  env: Record<string, string> = {},
  imports: Array<Type | DynamicModule> = [],
  /** Receives the service's JSON log lines (set LOG_LEVEL in `env` to have any). */
  logDestination?: DestinationStream,
  /** Another instance on an existing test database, instead of a fresh one. */
  existingDatabaseUrl?: string,
): Promise<TestApp> {
  const databaseUrl = existingDatabaseUrl ?? (await createTestDatabase());
  const dataDir = await mkdtemp(join(tmpdir(), 'storefront-app-'));
  const config = loadAppConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    // Fewer idle pollers per in-process app (specs run side by side on 2 cores); a spec
    // that measures the workers sets its own.
    WORKER_CONCURRENCY: '1',
    WEBHOOK_CONCURRENCY: '2',
    ...env,
  });
  const app = await createHttpApp({
    config,
    databaseUrl,
    logger: createLogger(config.LOG_LEVEL, logDestination),
    imports,
  });
  const inspection = await inspectionDataSource(databaseUrl);
  return {
    app,
    http: supertest(app.getHttpServer()),
    dataSource: inspection,
    config,
    databaseUrl,
    close: async () => {
      await app.close();
      await inspection.destroy();
    },
  };
}
