import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module.js';
import { TenantsModule } from '../tenants/tenants.module.js';
import { DemoSeedService } from './demo-seed.service.js';

@Module({
  imports: [TenantsModule, AppsModule],
  providers: [DemoSeedService],
  exports: [DemoSeedService],
})
export class SeedModule {}
