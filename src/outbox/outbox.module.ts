import { Module } from '@nestjs/common';
import { OutboxRepository } from './outbox.repository.js';

/** The transactional outbox: the lowest feature module, imported by every writer's module. */
@Module({
  providers: [OutboxRepository],
  exports: [OutboxRepository],
})
export class OutboxModule {}
