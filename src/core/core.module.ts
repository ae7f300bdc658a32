import { type DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config.js';
import { loadServerSecrets, ServerSecrets } from '../config/server-secrets.js';
import { dataSourceOptions } from '../database/data-source-options.js';
import { AuditModule } from '../audit/audit.module.js';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { ReadReplicas } from '../database/read-replicas.service.js';
import { Transactions } from '../database/transactions.js';
import {
  BACKGROUND_DATA_SOURCE,
  BackgroundTransactions,
} from '../database/background-transactions.js';

export interface CoreOptions {
  config: AppConfig;
  /** The resolved database (DATABASE_URL or the embedded server's). */
  databaseUrl: string;
  /**
   * The HTTP server: its pool's statements get DB_STATEMENT_TIMEOUT_MS. The CLI and the
   * worker run long set-based statements (seeding, backlogs) and have no deadline.
   */
  serving?: boolean;
}

/** What every entry point (HTTP server, CLI, tests) shares: configuration and the database. */
@Global()
@Module({})
export class CoreModule {
  static register({ config, databaseUrl, serving }: CoreOptions): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        // ConfigService reads the already validated values; AppConfig is injectable too, typed.
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          load: [
            () => ({ ...Object.fromEntries(Object.entries(config)), publicUrl: config.publicUrl }),
          ],
        }),
        TypeOrmModule.forRoot(
          dataSourceOptions(databaseUrl, {
            size: config.DB_POOL_SIZE,
            statementTimeoutMs: serving ? config.DB_STATEMENT_TIMEOUT_MS : 0,
          }),
        ),
        TypeOrmModule.forRoot({
          name: BACKGROUND_DATA_SOURCE,
          ...dataSourceOptions(databaseUrl, {
            size: config.DB_BACKGROUND_POOL_SIZE,
            // Not answering anyone: waiting out a busy moment beats failing the turn.
            acquireTimeoutMs: 30_000,
            applicationName: 'storefront-background',
          }),
        }),
        AuditModule,
        // Global; also needed where controllers exist without HTTP (CLI, worker): Nest builds their guards.
        RateLimitModule,
      ],
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: ServerSecrets, useFactory: () => loadServerSecrets(config) },
        Transactions,
        BackgroundTransactions,
        ReadReplicas,
      ],
      exports: [
        AppConfig,
        ServerSecrets,
        AuditModule,
        Transactions,
        BackgroundTransactions,
        ReadReplicas,
      ],
    };
  }
}
