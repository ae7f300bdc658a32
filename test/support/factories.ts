import { randomBytes } from 'node:crypto';
import type { AppRow } from '../../src/apps/apps.repository.js';
import { AppsService } from '../../src/apps/apps.service.js';
import { APP_SCOPES } from '../../src/auth/scopes.js';
import type { AdminContext } from '../../src/common/admin-context.js';
import { ProductsService } from '../../src/products/products.service.js';
import type { TenantRow } from '../../src/tenants/tenants.repository.js';
import { TenantsService } from '../../src/tenants/tenants.service.js';
import type { TestApp } from './test-app.js';

/** Who the factories act as (the audit log's actor). */
export const TEST_ADMIN: AdminContext = { kind: 'admin', actor: 'cli:test' };

export interface TestClient {
  app: AppRow;
  clientId: string;
  clientSecret: string;
}

export function newTenant(t: TestApp, currency = 'USD'): Promise<TenantRow> {
  return t.app
    .get(TenantsService)
    .create(TEST_ADMIN, { name: `Tenant ${randomBytes(3).toString('hex')}`, currency });
}

export async function newApp(
  t: TestApp,
  tenantId: number,
  scopes: readonly string[] = APP_SCOPES,
): Promise<TestClient> {
  const { app, clientSecret } = await t.app
    .get(AppsService)
    .create(TEST_ADMIN, { tenantId, name: 'Test app', scopes: scopes.join(' ') });
  return { app, clientId: app.clientId, clientSecret };
}

export async function newProduct(
  t: TestApp,
  tenantId: number,
  priceMinor = 1000,
  sku?: string,
  stock?: number,
): Promise<number> {
  const product = await t.app.get(ProductsService).createAsAdmin(TEST_ADMIN, tenantId, {
    sku: sku ?? `SKU-${randomBytes(4).toString('hex')}`,
    name: 'Test product',
    priceMinor,
    stock,
  });
  return product.id;
}

/** An access token from the token endpoint (client_secret_post, JSON). */
export async function tokenFor(
  t: TestApp,
  client: TestClient,
  scope = client.app.approvedScopes.join(' '),
): Promise<string> {
  const res = await t.http.post('/builders/oauth/token').send({
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: client.clientSecret,
    scope,
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
  return (res.body as { access_token: string }).access_token;
}

/** A tenant with one app holding every scope, its token, and one product. */
export interface Shop {
  tenantId: number;
  client: TestClient;
  token: string;
  product: number;
}

export async function newShop(t: TestApp, priceMinor = 1000): Promise<Shop> {
  const tenant = await newTenant(t);
  const client = await newApp(t, tenant.id);
  return {
    tenantId: tenant.id,
    client,
    token: await tokenFor(t, client),
    product: await newProduct(t, tenant.id, priceMinor),
  };
}

export function orderBodyFor(shop: Shop, email = 'ada@example.com') {
  return {
    customer: { name: 'Ada', email },
    shipping_address: { country: 'TR', city: 'Istanbul', address: 'Moda 1' },
    items: [{ product_id: shop.product, quantity: 2 }],
  };
}

/** POST /v1/orders for the shop's product; throws unless 201. */
export async function placeOrder(
  t: TestApp,
  shop: Shop,
  email?: string,
): Promise<{ id: number; status: string; updated_at: string }> {
  const res = await t.http
    .post('/v1/orders')
    .set('authorization', `Bearer ${shop.token}`)
    .send(orderBodyFor(shop, email));
  if (res.status !== 201) throw new Error(`order not created: ${res.status} ${res.text}`);
  return res.body as { id: number; status: string; updated_at: string };
}
