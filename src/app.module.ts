import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { AppsModule } from './apps/apps.module.js';
import { AuthModule } from './auth/auth.module.js';
import { OAuthModule } from './oauth/oauth.module.js';
import { OrdersModule } from './orders/orders.module.js';
import { CoreModule, type CoreOptions } from './core/core.module.js';
import { CustomersModule } from './customers/customers.module.js';
import { EventsModule } from './events/events.module.js';
import { HealthModule } from './health/health.module.js';
import { MarketplaceModule } from './marketplace/marketplace.module.js';
import { MaintenanceModule } from './maintenance/maintenance.module.js';
import { ProductsModule } from './products/products.module.js';
import { SeedModule } from './seed/seed.module.js';
import { TenantsModule } from './tenants/tenants.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';

/** The HTTP service. */
@Module({})
export class AppModule {
  static register(options: CoreOptions, extra: Array<Type | DynamicModule> = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.register(options),
        AuthModule,
        OAuthModule,
        HealthModule,
        TenantsModule,
        ProductsModule,
        OrdersModule,
        EventsModule,
        WebhooksModule,
        CustomersModule,
        MarketplaceModule,
        MaintenanceModule,
        AppsModule,
        SeedModule,
        ...extra,
      ],
    };
  }
}
