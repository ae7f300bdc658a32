import { Module } from '@nestjs/common';
import { OutboxModule } from '../outbox/outbox.module.js';
import { EventsController } from './events.controller.js';
import { EventsRepository } from './events.repository.js';
import { EventsService } from './events.service.js';

/** The feed (GET /v1/events) and the event catalogue; writers append through the outbox. */
@Module({
  imports: [OutboxModule],
  controllers: [EventsController],
  providers: [EventsRepository, EventsService],
  exports: [OutboxModule, EventsRepository],
})
export class EventsModule {}
