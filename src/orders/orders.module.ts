import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { OrderWriter } from './order-writer.js';
import { OrdersController } from './orders.controller.js';
import { OrdersRepository } from './orders.repository.js';
import { OrdersService } from './orders.service.js';

@Module({
  imports: [IdempotencyModule, EventsModule],
  controllers: [OrdersController],
  providers: [OrdersService, OrdersRepository, OrderWriter],
  exports: [OrdersService, OrdersRepository, OrderWriter],
})
export class OrdersModule {}
