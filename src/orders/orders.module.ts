import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { ProductsModule } from '../products/products.module.js';
import { OrderCatalogRepository } from './order-catalog.repository.js';
import { OrderCountsCompactor } from './order-counts-compactor.service.js';
import { OrderCountsRepository } from './order-counts.repository.js';
import { OrderListRepository } from './order-list.repository.js';
import { OrderListService } from './order-list.service.js';
import { OrderWriter } from './order-writer.js';
import { OrdersController } from './orders.controller.js';
import { OrdersRepository } from './orders.repository.js';
import { OrdersService } from './orders.service.js';
import { SeedOrdersRepository } from './seed-orders.repository.js';
import { FulfillmentsRepository } from './operations/fulfillments.repository.js';
import { OrderOperationsController } from './operations/order-operations.controller.js';
import { OrderOperationsService } from './operations/order-operations.service.js';
import { RefundsRepository } from './operations/refunds.repository.js';

@Module({
  imports: [IdempotencyModule, EventsModule, ProductsModule],
  controllers: [OrdersController, OrderOperationsController],
  providers: [
    OrdersService,
    OrderListService,
    OrdersRepository,
    OrderListRepository,
    OrderCatalogRepository,
    OrderCountsRepository,
    SeedOrdersRepository,
    OrderWriter,
    OrderCountsCompactor,
    OrderOperationsService,
    FulfillmentsRepository,
    RefundsRepository,
  ],
  exports: [
    OrderOperationsService,
    OrdersService,
    OrderListService,
    OrdersRepository,
    OrderCatalogRepository,
    SeedOrdersRepository,
    OrderWriter,
    OrderCountsCompactor,
  ],
})
export class OrdersModule {}
