import { Module } from '@nestjs/common';
import { QueueModule } from '../queue/queue.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { Maintenance } from './maintenance.service.js';

@Module({
  imports: [QueueModule, WebhooksModule],
  providers: [Maintenance],
  exports: [Maintenance],
})
export class MaintenanceModule {}
