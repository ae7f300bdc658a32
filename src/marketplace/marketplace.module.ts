import { Module } from '@nestjs/common';
import { OutboxModule } from '../outbox/outbox.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { OrdersModule } from '../orders/orders.module.js';
import { ProductsModule } from '../products/products.module.js';
import { QueueModule } from '../queue/queue.module.js';
import { TenantsModule } from '../tenants/tenants.module.js';
import { ImportLanesRepository } from './import-lanes.repository.js';
import { ImportProcessor } from './import-processor.service.js';
import { ImportWorker } from './import-worker.service.js';
import { ImportsController } from './imports.controller.js';
import { ImportsRepository } from './imports.repository.js';
import { ImportsService } from './imports.service.js';

@Module({
  imports: [
    QueueModule,
    IdempotencyModule,
    OrdersModule,
    OutboxModule,
    ProductsModule,
    TenantsModule,
  ],
  controllers: [ImportsController],
  providers: [
    ImportsService,
    ImportsRepository,
    ImportLanesRepository,
    ImportProcessor,
    ImportWorker,
  ],
})
export class MarketplaceModule {}
