import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { OrderListService } from './order-list.service.js';
import { OrderWriter } from './order-writer.js';
import { OrdersController } from './orders.controller.js';
import { OrdersRepository } from './orders.repository.js';
import { OrdersService } from './orders.service.js';

@Module({
  imports: [IdempotencyModule, EventsModule],
  controllers: [OrdersController],
  providers: [OrdersService, OrderListService, OrdersRepository, OrderWriter],
  exports: [OrdersService, OrderListService, OrdersRepository, OrderWriter],
})
export class OrdersModule {}
