import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/database/free-port.js';
import { within } from './support/eventually.js';
import {
  fetchAccessToken,
  processBudget,
  runCliJson,
  sharedInstanceEnv,
  startServer,
  startFlags,
  type ServerProcess,
} from './support/processes.js';

// 4-byte characters in UTF-8 (two UTF-16 units each): U+1F600 to U+1F627.
const EMOJI = Array.from({ length: 40 }, (_, i) => String.fromCodePoint(0x1f600 + i));
const emoji = (length: number, from = 0) =>
  Array.from({ length }, (_, i) => EMOJI[(i + from) % EMOJI.length]).join('');

/** The largest note, tags and metadata an order may carry (~130 KB as JSON). */
const largestPatch = (round: number) => ({
  note: `${round}`.padStart(4, '0') + emoji(4996, round),
  tags: Array.from({ length: 50 }, (_, i) => `${i}`.padStart(2, '0') + emoji(38, i)),
  metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, emoji(500, i)])),
});

/** Peak resident memory of a process so far (Linux), in MiB. */
function peakRssMib(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/**
 * CONTRACT 4: no request, nor eight worst-case requests at once, can take the process's
 * memory. The server runs as `npm start` runs it (its heap flags); one app fills its tenant
 * with the largest orders the contract allows (100 lines of products with the longest names,
 * the longest note, tags and metadata, all in 4-byte characters) and a timeline of 40 updates
 * of the largest order, then asks for the largest answers eight at a time: timelines and feed
 * pages at limit 500, order pages of 100, data exports of the email of 100 such orders, and
 * then eight order pages of 100. Meanwhile another tenant's reads are served, and afterwards
 * the process still runs and answers.
 */
describe('the largest reads, eight at once, under the heap npm start gives', () => {
  let server: ServerProcess;
  /** Two apps of one tenant and one of another, all with the largest data: eight at once run at once. */
  let a1: string;
  let a2: string;
  let b1: string;
  let other: string;
  let otherOrder: number;
  let largestOfA: number;
  const email = 'largest@example.com';

  const call = async (token: string, method: string, path: string, body?: object) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${text}`);
    return JSON.parse(text) as { id: number };
  };
  const inParallel = async <T>(count: number, one: (i: number) => Promise<T>): Promise<T[]> => {
    const results: T[] = [];
    for (let start = 0; start < count; start += 8) {
      const batch = Array.from({ length: Math.min(8, count - start) }, (_, i) => one(start + i));
      results.push(...(await Promise.all(batch)));
    }
    return results;
  };

  /** 100 products with the longest names, 100 of the largest orders of `email`; the first updated 40 more times. */
  async function fill(token: string): Promise<number> {
    const products = await inParallel(100, async (i) => {
      const body = { sku: `LARGE-${i}`.padEnd(64, 'X'), name: emoji(200, i), price: 1 };
      return (await call(token, 'POST', '/v1/products', body)).id;
    });
    const order = {
      customer: { name: emoji(200), email, phone: '+44 20 7946 0000' },
      shipping_address: {
        country: 'GB',
        city: emoji(200, 1),
        address: emoji(200, 2),
        district: emoji(200, 3),
        postal_code: emoji(200, 4),
      },
      items: products.map((product_id) => ({ product_id, quantity: 1 })),
    };
    const orders = await inParallel(100, async (i) => {
      const { id } = await call(token, 'POST', '/v1/orders', order);
      await call(token, 'PATCH', `/v1/orders/${id}`, largestPatch(i));
      return id;
    });
    for (let i = 1; i <= 40; i++)
      await call(token, 'PATCH', `/v1/orders/${orders[0]}`, largestPatch(i));
    return orders[0];
  }

  beforeAll(
    async () => {
      const port = await freePort();
      const env: Record<string, string> = {
        ...(await sharedInstanceEnv(`http://127.0.0.1:${port}`)),
        API_RATE_LIMIT_PER_TOKEN: '1000000',
      };
      server = await startServer({ ...env, PORT: String(port) }, await startFlags());
      const scopes = 'orders:read orders:write products:write events:read customer:privacy';
      const tenant = async (name: string) =>
        String(
          (await runCliJson(['tenant', 'create', '--name', name, '--currency', 'EUR'], env)).id,
        );
      const app = async (tenantId: string) => {
        const client = (await runCliJson(
          ['app', 'create', '--tenant', tenantId, '--name', 'App', '--scopes', scopes],
          env,
        )) as unknown as { client_id: string; client_secret: string };
        return fetchAccessToken(server, client, scopes);
      };
      const [tenantA, tenantB, tenantC] = await Promise.all(['A', 'B', 'C'].map(tenant));
      [a1, a2, b1, other] = await Promise.all([
        app(tenantA),
        app(tenantA),
        app(tenantB),
        app(tenantC),
      ]);
      [largestOfA] = await Promise.all([fill(a1), fill(b1)]);
      // The longest timelines: ~1,000 updates of the largest order, each carrying all of it
      // (as 1,000 PATCHes would write them, in a fraction of the time).
      const db = new pg.Client({ connectionString: env.DATABASE_URL });
      await db.connect();
      await db.query(
        `INSERT INTO events (tenant_id, type, order_id, data, size)
       SELECT e.tenant_id, e.type, e.order_id, e.data, e.size
       FROM events e, generate_series(1, 24)
       WHERE e.type = 'order.updated' AND e.order_id = ANY($1::bigint[])`,
        [[largestOfA]],
      );
      // The feed serves events once every older transaction of the server has ended (other
      // spec files share it): wait for that, so its pages are full ones.
      await within(30_000, async () => {
        const { rows } = await db.query<{ settled: boolean }>(
          `SELECT (SELECT max(txid) FROM events) < pg_snapshot_xmin(pg_current_snapshot()) AS settled`,
        );
        return rows[0].settled;
      });
      await db.end();
      const own = await call(other, 'POST', '/v1/products', { sku: 'C-1', name: 'C', price: 1 });
      const small = {
        customer: { name: 'C', email },
        shipping_address: { country: 'GB', city: 'London', address: '1 Way' },
        items: [{ product_id: own.id, quantity: 1 }],
      };
      otherOrder = (await call(other, 'POST', '/v1/orders', small)).id;
    },
    processBudget(1) + 240_000,
  );

  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  /** Sends `requests` at once while the other tenant reads its order; every answer whole. */
  async function burst(requests: Array<() => Promise<Response>>) {
    const state = { done: false };
    const otherStatuses: number[] = [];
    const reads = (async () => {
      while (!state.done) {
        const res = await fetch(`${server.url}/v1/orders/${otherOrder}`, {
          headers: { authorization: `Bearer ${other}` },
        });
        await res.arrayBuffer();
        otherStatuses.push(res.status);
      }
    })();
    const answers = await Promise.all(
      requests.map(async (request) => {
        try {
          const res = await request();
          return { status: res.status, bytes: (await res.arrayBuffer()).byteLength };
        } catch {
          return { status: 0, bytes: 0 };
        }
      }),
    );
    state.done = true;
    await reads.catch(() => undefined);
    return { answers, otherStatuses };
  }

  const get = (token: string, path: string) => () =>
    fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const exportOf = (token: string) => () =>
    fetch(`${server.url}/v1/customers/data-exports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });

  it('answers every one, serves the other tenant meanwhile, and keeps running', async () => {
    const before = peakRssMib(server.child.pid!);
    const mixed = await burst([
      get(a1, `/v1/orders/${largestOfA}/events?limit=500`),
      get(a1, `/v1/orders/${largestOfA}/events?limit=500`),
      exportOf(a1),
      exportOf(a1),
      get(a2, '/v1/orders?limit=100'),
      get(a2, '/v1/orders?limit=100'),
      get(b1, '/v1/events?types=order.updated&limit=500'),
      get(b1, '/v1/events?types=order.updated&limit=500'),
    ]);
    // Eight pages of 100 of the largest orders: the most a process lets run at once.
    const lists = await burst(
      [a1, a1, a1, a1, a2, a2, b1, b1].map((token) => get(token, '/v1/orders?limit=100')),
    );
    const peak = peakRssMib(server.child.pid!);
    console.log(
      `worst-case reads: peak RSS ${before.toFixed(0)} MiB before, ${peak.toFixed(0)} MiB after; ` +
        `answers (MiB) ${[...mixed.answers, ...lists.answers].map((a) => (a.bytes / 2 ** 20).toFixed(1)).join(' ')}; ` +
        `other tenant's reads meanwhile: ${mixed.otherStatuses.length + lists.otherStatuses.length}`,
    );
    for (const { answers, otherStatuses } of [mixed, lists]) {
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      expect(otherStatuses.length).toBeGreaterThan(0);
      expect(otherStatuses.every((status) => status === 200)).toBe(true);
    }
    // The largest answers really are the largest: pages of 100 orders of ~200 KB, exports of
    // 100 of them, feed and timeline pages near 4 MiB.
    expect(lists.answers.every((a) => a.bytes > 15 * 2 ** 20)).toBe(true);
    expect(mixed.answers[2].bytes).toBeGreaterThan(15 * 2 ** 20);
    expect(mixed.answers[0].bytes).toBeGreaterThan(3 * 2 ** 20);
    expect(mixed.answers[6].bytes).toBeGreaterThan(3 * 2 ** 20);
    expect(server.child.exitCode).toBeNull();
    const ready = await fetch(`${server.url}/health/ready`);
    expect(ready.status).toBe(200);
  }, 240_000);
});
