import { Module } from '@nestjs/common';
import { TenantsRepository } from './tenants.repository.js';
import { TenantsService } from './tenants.service.js';

@Module({ providers: [TenantsService, TenantsRepository], exports: [TenantsService] })
export class TenantsModule {}
