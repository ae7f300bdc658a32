import { Module } from '@nestjs/common';
import { TenantsModule } from '../tenants/tenants.module.js';
import { AppsService } from './apps.service.js';

@Module({ imports: [TenantsModule], providers: [AppsService], exports: [AppsService] })
export class AppsModule {}
