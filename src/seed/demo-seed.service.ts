import { Injectable } from '@nestjs/common';
import { Transactions } from '../common/transactions.js';
import type { App } from '../apps/app.entity.js';
import { AppsService } from '../apps/apps.service.js';
import { AuditService } from '../audit/audit.service.js';
import { APP_SCOPES } from '../auth/scopes.js';
import type { AppConfig } from '../config/app-config.js';
import { Product } from '../products/product.entity.js';
import type { Tenant } from '../tenants/tenant.entity.js';
import { TenantsService } from '../tenants/tenants.service.js';

export interface DemoData {
  tenant: Tenant;
  app: App;
  clientSecret: string;
  products: Product[];
}

const DEMO_CATALOG = [
  { sku: 'TSHIRT-BLK-M', name: 'T-shirt, black, M', priceMinor: 1999 },
  { sku: 'MUG-LOGO', name: 'Logo mug', priceMinor: 1250 },
  { sku: 'STICKER-PACK', name: 'Sticker pack', priceMinor: 10 },
  { sku: 'HOODIE-GRY-L', name: 'Hoodie, grey, L', priceMinor: 4900 },
  { sku: 'CAP-RED', name: 'Cap, red', priceMinor: 1500 },
];

/** Taken while deciding whether this is the first start, so two instances seed once. */
const FIRST_START_LOCK = 7_240_002;
const DEMO_SEEDED = 'seed.demo';

@Injectable()
export class DemoSeedService {
  constructor(
    private readonly transactions: Transactions,
    private readonly tenants: TenantsService,
    private readonly apps: AppsService,
    private readonly audit: AuditService,
  ) {}

  /** A new demo tenant with a small catalog and one app holding every scope, in one transaction. */
  seed(): Promise<DemoData> {
    return this.transactions.runWithManager(async (tx) => {
      const tenant = await this.tenants.create({ name: 'Demo Store', currency: 'USD' });
      const products = await tx.save(
        DEMO_CATALOG.map((p) => tx.create(Product, { ...p, tenantId: tenant.id, active: true })),
      );
      const { app, clientSecret } = await this.apps.create({
        tenantId: tenant.id,
        name: 'Demo app',
        scopes: APP_SCOPES.join(' '),
      });
      await this.audit.record({
        tenantId: tenant.id,
        action: DEMO_SEEDED,
        targetType: 'tenant',
        targetId: tenant.id,
      });
      return { tenant, app, clientSecret, products };
    });
  }

  /**
   * Seeds unless demo data was ever seeded into this database (the audit log remembers;
   * tenants made earlier with the CLI do not count). Undefined when there was nothing to do.
   */
  seedOnce(): Promise<DemoData | undefined> {
    return this.transactions.runWithManager(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [FIRST_START_LOCK]);
      const [{ seeded }]: Array<{ seeded: boolean }> = await tx.query(
        'SELECT EXISTS (SELECT 1 FROM audit_log WHERE action = $1) AS seeded',
        [DEMO_SEEDED],
      );
      return seeded ? undefined : this.seed();
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
