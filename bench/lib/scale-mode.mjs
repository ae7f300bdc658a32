// npm run bench -- --orders N: N orders made by the admin CLI's `seed orders`, then single
// sequential requests timed against the bounds of docs/BEHAVIOUR.md#performance.
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import pg from 'pg';
import { appToken, call, inParallel } from './api.mjs';
import { benchOrder } from './hot-paths.mjs';
import { analyze, memoryOf } from './processes.mjs';
import { fixed, table } from './report.mjs';

const run = promisify(execFile);
const WARMUPS = 3;
const PASSWORD = 'correct horse battery staple';

export async function scaleMode(service, { orders, customers, samples }) {
  const { base, tenantId } = service;
  const token = await appToken(
    base,
    service.clientId,
    service.clientSecret,
    'orders:read orders:write customer:auth customer:read order:read',
  );
  const productIds = await activeProducts(service);

  // A verified customer before seeding: `seed orders` links a share of the orders to the
  // tenant's existing customers first.
  const email = `bench-customer-${Date.now()}@example.com`;
  await call(base, 'POST', '/v1/customers/register', {
    token,
    body: { name: 'Bench Customer', email, password: PASSWORD },
    expect: 201,
  });
  await cli(service, ['customer', 'verify', '--tenant', tenantId, '--email', email]);

  console.log(`seeding ${orders} orders...`);
  const seeded =
    process.env.BENCH_SEED === 'api'
      ? await seedThroughApi(service, token, orders, productIds, email)
      : await seedWithCli(service, orders, customers);
  const analyzeStarted = performance.now();
  await analyze(service.databaseUrl);
  const analyzeSeconds = (performance.now() - analyzeStarted) / 1000;
  const exact = await countOrders(service);
  console.log(
    `seeded ${seeded.count} orders in ${fixed(seeded.seconds, 1)} s; tenant holds ${exact}`,
  );

  const session = (
    await call(base, 'POST', '/v1/customers/login', { token, body: { email, password: PASSWORD } })
  ).token;

  const list = (query) => ({ path: `/v1/orders?${query}` });
  const first = await call(base, 'GET', '/v1/orders?page=1&limit=20', { token });
  const pages = first.meta.total_pages;
  const middle = Math.max(1, Math.ceil(pages / 2));
  const sampleIds = await randomOrderIds(service, samples + WARMUPS);
  // The walk starts at the middle page's next_cursor, and there again if it reaches the end.
  const start = (await call(base, 'GET', `/v1/orders?page=${middle}&limit=20`, { token })).meta
    .next_cursor;
  let cursor = start;
  let key = 0;
  const keyPrefix = `scale-${Date.now()}`;

  const paths = [
    { name: 'list page 1', bound: 15, request: () => list('page=1&limit=20') },
    {
      name: 'list page 1, status=paid',
      bound: 15,
      request: () => list('page=1&limit=20&status=paid'),
    },
    {
      name: `list middle page by page (${middle})`,
      bound: 100,
      request: () => list(`page=${middle}&limit=20`),
    },
    {
      name: `list last page by page (${pages})`,
      bound: 100,
      request: () => list(`page=${pages}&limit=20`),
    },
    {
      name: 'list by cursor from the middle (a walk)',
      bound: 15,
      request: () => ({
        path: `/v1/orders?cursor=${cursor}&limit=20`,
        after: (b) => (cursor = b.meta.next_cursor ?? start),
      }),
    },
    {
      name: "a customer's own orders",
      bound: 15,
      request: () => ({ path: '/v1/customers/me/orders', token: session }),
    },
    {
      name: 'get by id',
      bound: 15,
      request: (i) => ({ path: `/v1/orders/${sampleIds[i % sampleIds.length]}` }),
    },
    {
      name: 'create (Idempotency-Key)',
      bound: 30,
      request: () => ({
        method: 'POST',
        path: '/v1/orders',
        body: benchOrder(productIds),
        headers: { 'idempotency-key': `${keyPrefix}-${key++}` },
        expect: 201,
      }),
    },
  ];

  const rows = [];
  const failures = [];
  for (const { name, bound, request } of paths) {
    const times = [];
    let body;
    for (let i = 0; i < WARMUPS + samples; i++) {
      const r = request(i);
      const started = performance.now();
      body = await call(base, r.method ?? 'GET', r.path, { token, ...r });
      const ms = performance.now() - started;
      r.after?.(body);
      if (i >= WARMUPS) times.push(ms);
    }
    times.sort((x, y) => x - y);
    const p50 = percentile(times, 50);
    rows.push([
      name,
      body.data ? `${body.data.length} / ${body.meta.total ?? '–'}` : '1',
      fixed(p50, 1),
      fixed(percentile(times, 90), 1),
      fixed(times.at(-1), 1),
      `≤ ${bound} ${p50 <= bound ? '✓' : '✗'}`,
    ]);
    console.log(`${name}: p50 ${fixed(p50, 1)} ms`);
  }
  if (first.meta.total !== exact) {
    failures.push(`meta.total ${first.meta.total} differs from count(*) ${exact}`);
  }
  const memory = memoryOf(service.pid);

  const markdown = [
    `${seeded.count} orders seeded ${seeded.how} in ${fixed(seeded.seconds, 1)} s ` +
      `(${fixed(seeded.count / seeded.seconds)} orders/s${seeded.wall ? `; ${fixed(seeded.wall, 1)} s wall clock with the CLI's start-up` : ''}); ` +
      `the tenant holds ${exact} orders, and meta.total of page 1 said ${first.meta.total} ` +
      `(${first.meta.total === exact ? 'exact' : 'NOT exact'}). ` +
      `ANALYZE after seeding took ${fixed(analyzeSeconds, 1)} s.`,
    '',
    `Single sequential requests to the service, ${samples} timed after ${WARMUPS} warm-ups each, limit 20; milliseconds (the bound applies to p50):`,
    '',
    table(['request', 'rows / meta.total', 'p50', 'p90', 'max', 'bound (p50)'], rows),
    '',
    `Service peak RSS (VmHWM) ${fixed(memory.peakMb)} MB, RSS at end ${fixed(memory.rssMb)} MB.`,
  ].join('\n');
  return { markdown, failures };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The admin CLI on the service's DATA_DIR (it connects to the running embedded database). */
async function cli(service, args) {
  const { stdout } = await run(
    process.execPath,
    ['dist/src/cli.js', ...args.map(String), '--json'],
    { env: service.env, maxBuffer: 1 << 20 },
  ).catch((error) => {
    throw new Error(
      `npm run cli -- ${args.join(' ')} --json failed: ${error.stderr || error.message}`,
      { cause: error },
    );
  });
  return JSON.parse(stdout);
}

async function seedWithCli(service, orders, customers) {
  const started = performance.now();
  const args = ['seed', 'orders', '--tenant', service.tenantId, '--count', orders];
  const out = await cli(service, [...args, '--customers', customers]).catch((error) => {
    throw new Error(
      `${error.message}\n(BENCH_SEED=api seeds through the API instead, for a small --orders)`,
      { cause: error },
    );
  });
  return {
    how: `by \`npm run cli -- seed orders --tenant ${service.tenantId} --count ${orders} --customers ${customers}\``,
    count: out.count,
    seconds: out.seconds,
    wall: (performance.now() - started) / 1000,
  };
}

/** Stand-in until `seed orders` exists: one in ten orders carries the customer's email. */
async function seedThroughApi(service, token, orders, productIds, email) {
  const started = performance.now();
  await inParallel(orders, 8, (i) =>
    call(service.base, 'POST', '/v1/orders', {
      token,
      body: benchOrder(productIds, i % 10 === 0 ? email : `seed-${i % 100}@example.com`),
      expect: 201,
    }),
  );
  return {
    how: 'through the API (BENCH_SEED=api)',
    count: orders,
    seconds: (performance.now() - started) / 1000,
  };
}

async function withDatabase(service, work) {
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const activeProducts = (service) =>
  withDatabase(service, async (db) =>
    (
      await db.query(
        'SELECT id FROM products WHERE tenant_id = $1 AND active ORDER BY id LIMIT 3',
        [service.tenantId],
      )
    ).rows.map((r) => Number(r.id)),
  );

const countOrders = (service) =>
  withDatabase(service, async (db) =>
    Number(
      (await db.query('SELECT count(*) AS n FROM orders WHERE tenant_id = $1', [service.tenantId]))
        .rows[0].n,
    ),
  );

/** Ids spread over the whole table (any order may be asked for, not only recent ones). */
const randomOrderIds = (service, n) =>
  withDatabase(service, async (db) =>
    (
      await db.query('SELECT id FROM orders WHERE tenant_id = $1 ORDER BY random() LIMIT $2', [
        service.tenantId,
        n,
      ])
    ).rows.map((r) => Number(r.id)),
  );
