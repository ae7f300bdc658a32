import { describe, expect, it } from 'vitest';
import type { AppRow } from '../apps/apps.repository.js';
import type { TenantRow } from '../tenants/tenants.repository.js';
import { demoBanner, type DemoData } from './demo-seed.service.js';

const demo: DemoData = {
  tenant: { id: 1, name: 'Demo Store', currency: 'USD' } as TenantRow,
  app: { clientId: 'app_demo', approvedScopes: ['orders:read'] } as AppRow,
  clientSecret: 'cs_the-demo-secret',
  products: [],
};

describe('demoBanner', () => {
  it('shows the secret and a curl line once, in development', () => {
    const text = demoBanner(demo, 'http://localhost:3000', 'development');
    expect(text).toContain('client_secret cs_the-demo-secret');
    expect(text).toContain('curl -s -X POST http://localhost:3000/builders/oauth/token');
  });

  it('never prints the secret with NODE_ENV=production; says how to make one', () => {
    const text = demoBanner(demo, 'http://localhost:3000', 'production');
    expect(text).not.toContain('cs_the-demo-secret');
    expect(text).toContain('app rotate-secret --client-id app_demo');
  });
});
