import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { TenantsModule } from '../tenants/tenants.module.js';
import { ProductsController } from './products.controller.js';
import { ProductsRepository } from './products.repository.js';
import { ProductsService } from './products.service.js';
import { StockRepository } from './stock.repository.js';

@Module({
  imports: [TenantsModule, IdempotencyModule, OutboxModule],
  controllers: [ProductsController],
  providers: [ProductsService, ProductsRepository, StockRepository],
  exports: [ProductsService, ProductsRepository, StockRepository],
})
export class ProductsModule {}
