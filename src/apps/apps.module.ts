import { Module } from '@nestjs/common';
import { TokensModule } from '../auth/tokens.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { TenantsModule } from '../tenants/tenants.module.js';
import { AppsRepository } from './apps.repository.js';
import { AppsService } from './apps.service.js';

@Module({
  imports: [TenantsModule, TokensModule, OutboxModule],
  providers: [AppsService, AppsRepository],
  exports: [AppsService],
})
export class AppsModule {}
