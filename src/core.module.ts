import { type DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from './config/app-config.js';
import { loadServerSecrets, ServerSecrets } from './config/server-secrets.js';
import { dataSourceOptions } from './database/data-source-options.js';
import { AuditModule } from './audit/audit.module.js';
import { RateLimitModule } from './common/rate-limit/rate-limit.module.js';
import { Transactions } from './common/transactions.js';

export interface CoreOptions {
  config: AppConfig;
  /** The resolved database (DATABASE_URL or the embedded server's). */
  databaseUrl: string;
}

/** What every entry point (HTTP server, CLI, tests) shares: configuration and the database. */
@Global()
@Module({})
export class CoreModule {
  static register({ config, databaseUrl }: CoreOptions): DynamicModule {
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
        TypeOrmModule.forRoot(dataSourceOptions(databaseUrl, config.DB_POOL_SIZE)),
        AuditModule,
        // Global; also needed where controllers exist without HTTP (CLI, worker): Nest builds their guards.
        RateLimitModule,
      ],
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: ServerSecrets, useFactory: () => loadServerSecrets(config) },
        Transactions,
      ],
      exports: [AppConfig, ServerSecrets, AuditModule, Transactions],
    };
  }
}
