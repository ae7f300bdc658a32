import { Controller, Get, Module, Query } from '@nestjs/common';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { appScope } from '../src/auth/grants.js';
import { AppCtx, Authenticated } from '../src/auth/authenticated.decorator.js';
import type { AppContext } from '../src/auth/request-context.js';
import { ExpensiveRequests } from '../src/rate-limit/expensive-requests.js';
import { Transactions } from '../src/database/transactions.js';
import { DatabaseProbe } from '../src/health/database-probe.js';
import { within } from './support/eventually.js';
import { newApp, newShop, newTenant, tokenFor } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * Routes whose statement takes as long as the caller says, on the request pool: a stand-in
 * for a list over a million orders with an unselective filter (0.5–1 s each), which cannot
 * be seeded in a test's time. `gated` runs through the caps every list and feed service
 * has (ExpensiveRequests); `hog` does not, to show what the caps and the separate pools protect against.
 */
@Controller('__neighbour')
class NeighbourProbe {
  constructor(
    private readonly transactions: Transactions,
    private readonly expensive: ExpensiveRequests,
  ) {}

  @Get('gated')
  @Authenticated(appScope('orders:read'))
  gated(@AppCtx() ctx: AppContext, @Query('ms') ms: string): Promise<unknown> {
    return this.expensive.run(ctx, () => this.sleep(ms));
  }

  @Get('hog')
  @Authenticated(appScope('orders:read'))
  hog(@Query('ms') ms: string): Promise<unknown> {
    return this.sleep(ms);
  }

  private async sleep(ms: string): Promise<unknown> {
    await this.transactions.db.shared().rows('SELECT pg_sleep($1::float / 1000)', [Number(ms)]);
    return { slept: Number(ms) };
  }
}

@Module({ controllers: [NeighbourProbe] })
class NeighbourProbeModule {}

interface Sample {
  status: number;
  ms: number;
  retryAfter?: string;
}

function median(samples: Sample[]): number {
  const ms = samples.map((s) => s.ms).sort((x, y) => x - y);
  return ms[Math.floor(ms.length / 2)];
}

function p99(samples: Sample[]): number {
  const sorted = samples.map((s) => s.ms).sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
}

describe('one tenant flooding slow lists while another is served', () => {
  let t: TestApp;
  let tokensA: string[];
  let tokenB: string;
  let tokenC: string;
  let tenantA: number;
  let tenantB: number;
  let appA: number;

  beforeAll(async () => {
    t = await createTestApp({ DB_POOL_SIZE: '10', API_RATE_LIMIT_PER_TOKEN: '100000' }, [
      NeighbourProbeModule,
    ]);
    const [a, b] = [await newTenant(t), await newTenant(t)];
    tenantA = a.id;
    tenantB = b.id;
    tokensA = [];
    for (let i = 0; i < 3; i++) {
      const client = await newApp(t, a.id, [
        'orders:read',
        'events:read',
        'products:read',
        'webhooks:read',
      ]);
      appA ??= client.app.id;
      tokensA.push(await tokenFor(t, client));
    }
    tokenB = await tokenFor(t, await newApp(t, b.id, ['orders:read']), 'orders:read');
    const c = await newTenant(t);
    tokenC = await tokenFor(t, await newApp(t, c.id, ['orders:read']), 'orders:read');
  });

  afterAll(() => t?.close());

  const timed = async (path: string, token?: string): Promise<Sample> => {
    const start = performance.now();
    const req = t.http.get(path);
    const res = await (token ? req.set('authorization', `Bearer ${token}`) : req);
    return {
      status: res.status,
      ms: performance.now() - start,
      retryAfter: res.headers['retry-after'],
    };
  };

  /** A's loops (over all of A's apps) until `done`; every answer is kept. */
  function flood(
    path: string,
    loops: number,
    tokens: string[] = tokensA,
  ): { stop: () => Promise<Sample[]> } {
    const state = { over: false };
    const samples: Sample[] = [];
    const running = Promise.all(
      Array.from({ length: loops }, async (_, i) => {
        while (!state.over) samples.push(await timed(path, tokens[i % tokens.length]));
      }),
    );
    return {
      stop: async () => {
        state.over = true;
        await running;
        return samples;
      },
    };
  }

  /** Holds an app's 4 places and its 32 waiting places at the gate; resolves to their release. */
  async function holdEveryPlace(owner: { tenantId: number; appId: number }) {
    const gate = t.app.get(ExpensiveRequests).gate;
    const held = await Promise.all(Array.from({ length: 4 }, () => gate.enter(owner)));
    const queued = Array.from({ length: 32 }, () => gate.enter(owner));
    return async (): Promise<void> => {
      // Each queued entry leaves as soon as it is let in, handing its place on.
      const drained = Promise.all(queued.map((entered) => entered.then((leave) => leave())));
      held.forEach((leave) => leave());
      await drained;
    };
  }

  /** Counted on a connection of the test's own: the request pool is what is being filled. */
  const sleepingStatements = async (): Promise<number> => {
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND query LIKE 'SELECT pg_sleep%' AND state = 'active'`,
      );
      return rows[0].n;
    } finally {
      await client.end();
    }
  };

  /** B's cheap list calls and readiness probes, one after another. */
  async function serveB(count: number): Promise<{ lists: Sample[]; ready: Sample[] }> {
    const lists: Sample[] = [];
    const ready: Sample[] = [];
    for (let i = 0; i < count; i++) {
      lists.push(await timed('/v1/orders?limit=1', tokenB));
      if (i % 4 === 0) ready.push(await timed('/health/ready'));
    }
    return { lists, ready };
  }

  it('A gets 429 beyond its caps; B is answered 200 at once and readiness stays 200', async () => {
    const floodA = flood('/__neighbour/gated?ms=400', 120);
    // A's flood holds every place it may before B starts.
    const gate = t.app.get(ExpensiveRequests).gate;
    await within(5_000, async () => gate.running(tenantA) === 6);
    // How long each of B's requests waited at the gate: "at once" is this, not the wall
    // clock, which A's 120 loops and the other spec files share with B on a small machine.
    const enter = gate.enter.bind(gate);
    const waitsB: number[] = [];
    const entering = vi.spyOn(gate, 'enter').mockImplementation(async (owner) => {
      const start = performance.now();
      const leave = await enter(owner);
      if (owner.tenantId === tenantB) waitsB.push(performance.now() - start);
      return leave;
    });
    const { lists, ready } = await serveB(40).finally(() => entering.mockRestore());
    const a = await floodA.stop();

    expect(lists.map((s) => s.status)).toEqual(lists.map(() => 200));
    expect(ready.map((s) => s.status)).toEqual(ready.map(() => 200));
    // A's own requests: served within its cap, the rest refused at once with Retry-After.
    const statusesA = new Set(a.map((s) => s.status));
    expect([...statusesA].sort((x, y) => x - y)).toEqual([200, 429]);
    for (const refused of a.filter((s) => s.status === 429)) expect(refused.retryAfter).toBe('1');
    // Admitted in the same turn of the event loop: never behind one of A's 400 ms requests.
    expect(waitsB).toHaveLength(40);
    expect(Math.max(...waitsB)).toBeLessThan(50);
    expect(median(lists)).toBeLessThan(1_000);
    // eslint-disable-next-line no-console
    console.info(
      `neighbours (gated): B lists p99 ${p99(lists).toFixed(0)} ms, readiness p99 ${p99(ready).toFixed(0)} ms; ` +
        `A: ${a.filter((s) => s.status === 200).length} × 200, ${a.filter((s) => s.status === 429).length} × 429`,
    );
  });

  it('two tenants flooding together leave the pool to cheap requests and B its turn', async () => {
    const floodA = flood('/__neighbour/gated?ms=400', 60);
    const floodC = flood('/__neighbour/gated?ms=400', 60, [tokenC]);
    // Every place of the gate is taken (8 of 10 connections), A and C share them.
    await within(5_000, async () => (await sleepingStatements()) === 8);
    const { lists, ready } = await serveB(20);
    await Promise.all([floodA.stop(), floodC.stop()]);
    expect(lists.map((s) => s.status)).toEqual(lists.map(() => 200));
    expect(ready.map((s) => s.status)).toEqual(ready.map(() => 200));
    // B's list waits for the next freed place at most (A's and C's take 400 ms).
    expect(p99(lists)).toBeLessThan(2_000);
    // eslint-disable-next-line no-console
    console.info(`neighbours (two flooding): B lists p99 ${p99(lists).toFixed(0)} ms`);
  });

  it('every list and feed route goes through the caps: an app at its cap and queue gets 429 at once', async () => {
    const release = await holdEveryPlace({ tenantId: tenantA, appId: appA });
    try {
      const paths = [
        '/v1/orders',
        '/v1/orders/1/events',
        '/v1/events',
        '/v1/products',
        '/v1/webhook-endpoints/1/deliveries',
      ];
      for (const path of paths) {
        const res = await t.http.get(path).set('authorization', `Bearer ${tokensA[0]}`);
        expect([path, res.status, res.body.error]).toEqual([path, 429, 'rate_limited']);
        expect(res.headers['retry-after']).toBe('1');
        expect(res.headers['ratelimit-policy']).toBe('"concurrent";q=4;w=1');
      }
      // Another app of the same tenant is not held up by this one's queue.
      const sibling = await t.http.get('/v1/orders').set('authorization', `Bearer ${tokensA[1]}`);
      expect(sibling.status).toBe(200);
    } finally {
      await release();
    }
  });

  it("a customer session's own-order lists take the customer's places, never its app's", async () => {
    const shop = await newShop(t);
    const register = await t.http
      .post('/v1/customers/register')
      .set('authorization', `Bearer ${shop.token}`)
      .send({ name: 'Bo', email: 'bo@example.com', password: 'correct horse battery' });
    expect(register.status).toBe(201);
    const login = await t.http
      .post('/v1/customers/login')
      .set('authorization', `Bearer ${shop.token}`)
      .send({ email: 'bo@example.com', password: 'correct horse battery' });
    const session = (login.body as { token: string }).token;
    const release = await holdEveryPlace({ tenantId: shop.tenantId, appId: shop.client.app.id });
    try {
      const app = await t.http.get('/v1/orders').set('authorization', `Bearer ${shop.token}`);
      expect(app.status).toBe(429);
      const own = await t.http
        .get('/v1/customers/me/orders')
        .set('authorization', `Bearer ${session}`);
      expect(own.status).toBe(200);
    } finally {
      await release();
    }
  });

  it('a flood of readiness probes shares one ping per interval and never queues', async () => {
    const probe = t.app.get(DatabaseProbe);
    const pings = vi.spyOn(probe['pool'], 'query');
    const answers = await Promise.all(Array.from({ length: 200 }, () => timed('/health/ready')));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    // Up to one ping per 250 ms while the flood lasts, not one per probe.
    expect(pings.mock.calls.length).toBeLessThan(20);
    pings.mockRestore();
  });

  it('readiness answers at once even while requests hold every request connection', async () => {
    const floodA = flood('/__neighbour/hog?ms=800', 20);
    // Every request connection is busy, and more requests wait for one.
    await within(5_000, async () => (await sleepingStatements()) === 10);
    const ready = await timed('/health/ready');
    await floodA.stop();
    expect(ready.status).toBe(200);
    expect(ready.ms).toBeLessThan(500);
  });
});

describe('a statement past its deadline', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp({ DB_STATEMENT_TIMEOUT_MS: '300' }, [NeighbourProbeModule]);
    const tenant = await newTenant(t);
    token = await tokenFor(t, await newApp(t, tenant.id, ['orders:read']), 'orders:read');
  });

  afterAll(() => t?.close());

  it('answers 503 unavailable with Retry-After, holds nothing, and the next request is served', async () => {
    const res = await t.http
      .get('/__neighbour/gated?ms=5000')
      .set('authorization', `Bearer ${token}`);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.body).toEqual({
      error: 'unavailable',
      error_description: expect.stringContaining('deadline') as string,
    });
    const sleeping: unknown[] = await t.dataSource.query(
      "SELECT 1 FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND state = 'active'",
    );
    expect(sleeping).toEqual([]);
    const next = await t.http.get('/v1/orders?limit=1').set('authorization', `Bearer ${token}`);
    expect(next.status).toBe(200);
  });
});
