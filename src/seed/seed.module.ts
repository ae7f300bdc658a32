import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module.js';
import { ProductsModule } from '../products/products.module.js';
import { TenantsModule } from '../tenants/tenants.module.js';
import { DemoSeedRepository } from './demo-seed.repository.js';
import { DemoSeedService } from './demo-seed.service.js';
import { OrderSeeder } from './order-seeder.service.js';
import { OrdersModule } from '../orders/orders.module.js';

@Module({
  imports: [TenantsModule, AppsModule, ProductsModule, OrdersModule],
  providers: [DemoSeedService, DemoSeedRepository, OrderSeeder],
  exports: [DemoSeedService, OrderSeeder],
})
export class SeedModule {}
