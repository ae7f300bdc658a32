import { type DynamicModule, Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module.js';
import { CoreModule, type CoreOptions } from '../core/core.module.js';
import { CustomersModule } from '../customers/customers.module.js';
import { OrdersModule } from '../orders/orders.module.js';
import { ProductsModule } from '../products/products.module.js';
import { SeedModule } from '../seed/seed.module.js';
import { TenantsModule } from '../tenants/tenants.module.js';
import { APP_SUBCOMMANDS, AppCommandGroup } from './app.commands.js';
import {
  CustomerCommand,
  CustomerEraseCommand,
  CustomerExportCommand,
  CustomerVerifyCommand,
} from './customer.commands.js';
import { OrderCommand, OrderSetStatusCommand } from './order.commands.js';
import { ProductCommand, ProductCreateCommand, ProductImportCommand } from './product.commands.js';
import { SeedCommand, SeedDemoCommand, SeedOrdersCommand } from './seed.commands.js';
import { TenantCommand, TenantCreateCommand, TenantListCommand } from './tenant.commands.js';

/** The admin CLI: thin commands over the same services the HTTP API uses. */
@Module({})
export class CliModule {
  static register(options: CoreOptions): DynamicModule {
    return {
      module: CliModule,
      imports: [
        CoreModule.register(options),
        TenantsModule,
        ProductsModule,
        OrdersModule,
        CustomersModule,
        AppsModule,
        SeedModule,
      ],
      providers: [
        AppCommandGroup,
        CustomerCommand,
        CustomerVerifyCommand,
        CustomerExportCommand,
        CustomerEraseCommand,
        OrderCommand,
        OrderSetStatusCommand,
        ...APP_SUBCOMMANDS,
        TenantCommand,
        TenantCreateCommand,
        TenantListCommand,
        ProductCommand,
        ProductCreateCommand,
        ProductImportCommand,
        SeedCommand,
        SeedDemoCommand,
        SeedOrdersCommand,
      ],
    };
  }
}
