import { Module } from '@nestjs/common';
import { QueueModule } from '../queue/queue.module.js';
import { Maintenance } from './maintenance.service.js';

@Module({ imports: [QueueModule], providers: [Maintenance], exports: [Maintenance] })
export class MaintenanceModule {}
