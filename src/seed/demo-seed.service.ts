import { Injectable } from '@nestjs/common';
import type { AppRow } from '../apps/apps.repository.js';
import { AppsService } from '../apps/apps.service.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { APP_SCOPES } from '../auth/scopes.js';
import { type AdminContext, currentAdmin } from '../common/admin-context.js';
import { Transactions } from '../database/transactions.js';
import type { AppConfig } from '../config/app-config.js';
import { type ProductRow, ProductsRepository } from '../products/products.repository.js';
import type { TenantRow } from '../tenants/tenants.repository.js';
import { TenantsService } from '../tenants/tenants.service.js';
import { DemoSeedRepository } from './demo-seed.repository.js';

export interface DemoData {
  tenant: TenantRow;
  app: AppRow;
  clientSecret: string;
  products: ProductRow[];
}

const DEMO_CATALOG = [
  { sku: 'TSHIRT-BLK-M', name: 'T-shirt, black, M', priceMinor: 1999 },
  { sku: 'MUG-LOGO', name: 'Logo mug', priceMinor: 1250 },
  { sku: 'STICKER-PACK', name: 'Sticker pack', priceMinor: 10 },
  { sku: 'HOODIE-GRY-L', name: 'Hoodie, grey, L', priceMinor: 4900 },
  { sku: 'CAP-RED', name: 'Cap, red', priceMinor: 1500 },
];

@Injectable()
export class DemoSeedService {
  constructor(
    private readonly transactions: Transactions,
    private readonly tenants: TenantsService,
    private readonly apps: AppsService,
    private readonly products: ProductsRepository,
    private readonly audit: AuditRepository,
    private readonly marker: DemoSeedRepository,
  ) {}

  /**
   * A new demo tenant with a small catalog and one app holding every scope, in one unit of
   * work. Both callers (the first start, `seed demo`) act as the user running the process.
   */
  seed(admin: AdminContext = currentAdmin()): Promise<DemoData> {
    return this.transactions.run(async (db) => {
      const tenant = await this.tenants.create(admin, { name: 'Demo Store', currency: 'USD' });
      const path = db.tenant(tenant.id);
      const products: ProductRow[] = [];
      for (const item of DEMO_CATALOG) {
        // A new tenant: no sku is taken.
        products.push((await this.products.insert(path, { ...item, active: true }))!);
      }
      const { app, clientSecret } = await this.apps.create(admin, {
        tenantId: tenant.id,
        name: 'Demo app',
        scopes: APP_SCOPES.join(' '),
      });
      await this.audit.record(path, admin, {
        action: 'seed.demo',
        targetType: 'tenant',
        targetId: tenant.id,
      });
      await this.marker.markSeeded(db.shared(), tenant.id);
      return { tenant, app, clientSecret, products };
    });
  }

  /**
   * Seeds unless demo data was ever seeded into this database (by the first start or
   * `seed demo`; tenants made with the CLI do not count). Undefined when there was nothing
   * to do.
   */
  seedOnce(admin: AdminContext = currentAdmin()): Promise<DemoData | undefined> {
    return this.transactions.run(async (db) => {
      await this.marker.lockFirstStart(db.shared());
      return (await this.marker.isSeeded(db.shared())) ? undefined : this.seed(admin);
    });
  }
}

/** The first-start banner: the only place a demo secret is ever shown. */
export function demoBanner(
  demo: DemoData,
  publicUrl: string,
  nodeEnv: AppConfig['NODE_ENV'] = 'development',
): string {
  const scopes = demo.app.approvedScopes.join(' ');
  const head = [
    '',
    `  tenant        ${demo.tenant.id} (${demo.tenant.name}, ${demo.tenant.currency})`,
    `  client_id     ${demo.app.clientId}`,
  ];
  if (nodeEnv === 'production') {
    return [
      'Demo data created. NODE_ENV=production: the client secret is not printed; make one with',
      `  npm run cli -- app rotate-secret --client-id ${demo.app.clientId}`,
      ...head,
      '',
    ].join('\n');
  }
  return [
    '',
    'Demo data created (shown once; the secret is stored only as a hash):',
    ...head.slice(1),
    `  client_secret ${demo.clientSecret}`,
    `  scopes        ${scopes}`,
    '',
    'Get a token:',
    `  curl -s -X POST ${publicUrl}/builders/oauth/token -H 'Content-Type: application/json' \\`,
    `    -d '{"grant_type":"client_credentials","client_id":"${demo.app.clientId}","client_secret":"${demo.clientSecret}","scope":"${scopes}"}'`,
    '',
  ].join('\n');
}
