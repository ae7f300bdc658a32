import { type DynamicModule, Module } from '@nestjs/common';
import { CoreModule, type CoreOptions } from './core/core.module.js';
import { MarketplaceModule } from './marketplace/marketplace.module.js';
import { MaintenanceModule } from './maintenance/maintenance.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';

/** A process that only works the job queue (`npm run worker`). */
@Module({})
export class WorkerModule {
  static register(options: CoreOptions): DynamicModule {
    return {
      module: WorkerModule,
      imports: [CoreModule.register(options), MarketplaceModule, MaintenanceModule, WebhooksModule],
    };
  }
}
