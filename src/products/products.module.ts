import { Module } from '@nestjs/common';
import { TenantsModule } from '../tenants/tenants.module.js';
import { ProductsService } from './products.service.js';

@Module({ imports: [TenantsModule], providers: [ProductsService], exports: [ProductsService] })
export class ProductsModule {}
