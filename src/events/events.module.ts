import { Module } from '@nestjs/common';
import { EventLog } from './event-log.js';
import { EventsController } from './events.controller.js';
import { EventsRepository } from './events.repository.js';
import { EventsService } from './events.service.js';

/** Low in the graph: writers append to the log; it depends on nothing above common/. */
@Module({
  controllers: [EventsController],
  providers: [EventLog, EventsRepository, EventsService],
  exports: [EventLog, EventsRepository],
})
export class EventsModule {}
