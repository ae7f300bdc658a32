import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/database/free-port.js';
import { within } from './support/eventually.js';
import {
  processBudget,
  fetchAccessToken,
  runCli,
  runCliJson,
  sharedInstanceEnv,
  startServer,
  type ServerProcess,
} from './support/processes.js';

interface CreatedApp {
  client_id: string;
  client_secret: string;
}

/**
 * Two API processes on one database, as behind a load balancer (one PUBLIC_URL, shared keys),
 * and the admin CLI as a third process: a change made by the CLI takes effect on both
 * servers within 1 s.
 */
// A test runs the CLI up to four times.
describe('two server processes sharing one database', { timeout: processBudget(4) }, () => {
  let env: Record<string, string>;
  let a: ServerProcess;
  let b: ServerProcess;
  let tenantId: number;

  beforeAll(async () => {
    const portA = await freePort();
    env = await sharedInstanceEnv(`http://127.0.0.1:${portA}`);
    [a, b] = await Promise.all([startServer({ ...env, PORT: String(portA) }), startServer(env)]);
    const tenant = await cli(['tenant', 'create', '--name', 'Shared', '--currency', 'EUR']);
    tenantId = tenant.id as number;
  });

  afterAll(async () => {
    for (const server of [a, b]) {
      if (server && server.child.exitCode === null) {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    }
  });

  const cli = (args: string[]) => runCliJson(args, env);

  const newApp = async (scopes = 'products:read orders:read') =>
    (await cli([
      'app',
      'create',
      '--tenant',
      String(tenantId),
      '--name',
      'ERP',
      '--scopes',
      scopes,
    ])) as unknown as CreatedApp;

  const token = (server: ServerProcess, app: CreatedApp, scope = 'products:read') =>
    fetchAccessToken(server, app, scope);

  const status = async (server: ServerProcess, accessToken: string) =>
    (
      await fetch(`${server.url}/v1/products`, {
        headers: { authorization: `Bearer ${accessToken}` },
      })
    ).status;

  /**
   * The token works on both servers, twice each: the first use verifies it and caches the
   * result, the second is answered from that cache. A change must refuse it on both anyway.
   */
  async function expectLive(accessToken: string): Promise<void> {
    for (const server of [a, b, a, b]) expect(await status(server, accessToken)).toBe(200);
  }

  async function expectDeadOnBothWithinOneSecond(accessToken: string): Promise<number[]> {
    const elapsed = await Promise.all(
      [a, b].map((s) => within(1000, async () => (await status(s, accessToken)) === 401)),
    );
    for (const ms of elapsed) expect(ms).toBeLessThan(1000);
    return elapsed;
  }

  it('a stock OAuth client (oauth4webapi) gets a token through RFC 8414 discovery, unchanged, and it works', async () => {
    const app = await newApp();
    const issuer = new URL(env.PUBLIC_URL);
    const options = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options }),
    );
    const client: oauth.Client = { client_id: app.client_id };
    for (const auth of [
      oauth.ClientSecretBasic(app.client_secret),
      oauth.ClientSecretPost(app.client_secret),
    ]) {
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        client,
        auth,
        new URLSearchParams({ scope: 'products:read' }),
        options,
      );
      const result = await oauth.processClientCredentialsResponse(as, client, response);
      expect(result.token_type).toBe('bearer');
      expect(result.scope).toBe('products:read');
      await expectLive(result.access_token);
    }
  });

  it('revoke-token through the CLI: 401 on both servers within 1 s, other tokens keep working', async () => {
    const app = await newApp();
    const victim = await token(a, app);
    const other = await token(b, app);
    await expectLive(victim);
    const jti = JSON.parse(Buffer.from(victim.split('.')[1], 'base64url').toString()).jti as string;
    await cli(['app', 'revoke-token', '--token-id', jti]);
    await expectDeadOnBothWithinOneSecond(victim);
    await expectLive(other);
  });

  it('deactivate through the CLI: 401 on both within 1 s and invalid_client on both token endpoints', async () => {
    const app = await newApp();
    const bystander = await token(a, await newApp());
    const victim = await token(a, app);
    await expectLive(victim);
    await cli(['app', 'deactivate', '--client-id', app.client_id]);
    await expectDeadOnBothWithinOneSecond(victim);
    await expectLive(bystander);
    for (const server of [a, b]) {
      const res = await fetch(`${server.url}/builders/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: app.client_id,
          client_secret: app.client_secret,
          scope: 'products:read',
        }),
      });
      expect(res.status).toBe(401);
    }
  });

  it('rotate-secret and set-scopes through the CLI: earlier tokens die on both within 1 s', async () => {
    const app = await newApp();
    const beforeRotation = await token(b, app);
    await expectLive(beforeRotation);
    const rotated = (await cli([
      'app',
      'rotate-secret',
      '--client-id',
      app.client_id,
    ])) as unknown as CreatedApp;
    await expectDeadOnBothWithinOneSecond(beforeRotation);

    const beforeScopes = await token(a, rotated);
    await expectLive(beforeScopes);
    await cli(['app', 'set-scopes', '--client-id', app.client_id, '--scopes', 'products:read']);
    await expectDeadOnBothWithinOneSecond(beforeScopes);
    await expectLive(await token(b, rotated));
  });

  it('order set-status through the CLI follows the same rules as the API', async () => {
    const product = await cli([
      'product',
      'create',
      '--tenant',
      String(tenantId),
      '--sku',
      'CLI-1',
      '--name',
      'Mug',
      '--price',
      '12.50',
    ]);
    const app = await newApp('orders:read orders:write');
    const accessToken = await token(a, app, 'orders:read orders:write');
    const created = await fetch(`${a.url}/v1/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({
        customer: { name: 'Ada', email: 'ada@example.com' },
        shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
        items: [{ product_id: product.id, quantity: 2 }],
      }),
    });
    const order = (await created.json()) as { id: number; total: number };
    expect(order.total).toBe(25);
    const paid = await cli([
      'order',
      'set-status',
      '--tenant',
      String(tenantId),
      '--order',
      String(order.id),
      '--status',
      'paid',
    ]);
    expect(paid).toMatchObject({ id: order.id, status: 'paid' });
    const refused = await runCli(
      [
        'order',
        'set-status',
        '--tenant',
        String(tenantId),
        '--order',
        String(order.id),
        '--status',
        'pending',
        '--json',
      ],
      env,
    );
    expect(refused.status).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: 'invalid_transition' });
    const read = await fetch(`${b.url}/v1/orders/${order.id}`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(((await read.json()) as { status: string }).status).toBe('paid');
  });

  it('app list shows the last four characters of a secret, never the secret or its hash', async () => {
    const app = await newApp();
    const { apps } = (await cli(['app', 'list', '--tenant', String(tenantId)])) as {
      apps: Array<Record<string, unknown>>;
    };
    const listed = apps.find((x) => x.client_id === app.client_id)!;
    expect(listed).toMatchObject({ secret_last4: app.client_secret.slice(-4), active: true });
    expect(Object.keys(listed)).not.toContain('client_secret');
    expect(Object.keys(listed)).not.toContain('secret_hash');
    expect(JSON.stringify(apps)).not.toContain(app.client_secret);
  });

  it('seed demo prints demo credentials once, and they obtain a token', async () => {
    const demo = (await cli(['seed', 'demo'])) as unknown as CreatedApp & {
      approved_scopes: string[];
    };
    expect(demo.approved_scopes).toContain('orders:write');
    expect(await status(a, await token(a, demo))).toBe(200);
  });

  it('a private app token from the CLI works on both servers', async () => {
    const app = await newApp();
    const issued = await cli([
      'app',
      'token',
      '--client-id',
      app.client_id,
      '--scopes',
      'products:read',
      '--ttl',
      '600',
    ]);
    expect(issued).toMatchObject({
      token_id: expect.any(String),
      expires_in: 600,
      scope: 'products:read',
    });
    await expectLive(issued.access_token as string);
  });
});
