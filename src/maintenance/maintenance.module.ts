import { Module } from '@nestjs/common';
import { TokensModule } from '../auth/tokens.module.js';
import { EventRetentionRepository } from '../events/event-retention.repository.js';
import { QueueModule } from '../queue/queue.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { ExpiredRowsRepository } from './expired-rows.repository.js';
import { Maintenance } from './maintenance.service.js';

@Module({
  imports: [QueueModule, WebhooksModule, TokensModule],
  providers: [Maintenance, ExpiredRowsRepository, EventRetentionRepository],
  exports: [Maintenance],
})
export class MaintenanceModule {}
