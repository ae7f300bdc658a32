import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { OrderCountsCompactor } from './order-counts-compactor.service.js';
import { OrderListService } from './order-list.service.js';
import { OrderWriter } from './order-writer.js';
import { OrdersController } from './orders.controller.js';
import { OrdersRepository } from './orders.repository.js';
import { OrdersService } from './orders.service.js';

@Module({
  imports: [IdempotencyModule, EventsModule],
  controllers: [OrdersController],
  providers: [OrdersService, OrderListService, OrdersRepository, OrderWriter, OrderCountsCompactor],
  exports: [OrdersService, OrderListService, OrdersRepository, OrderWriter, OrderCountsCompactor],
})
export class OrdersModule {}
