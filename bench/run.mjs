// npm run bench: the hot paths of the built server on a throwaway embedded database.
// Each scenario runs BENCH_SECONDS (default 5) with BENCH_CONNECTIONS (default 20).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port: p } = probe.address();
    probe.close(() => resolve(p));
  });
});
const base = `http://127.0.0.1:${port}`;
const dataDir = await mkdtemp(join(tmpdir(), 'storefront-bench-'));
const server = spawn(process.execPath, ['dist/src/main.js'], {
  env: {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    LOG_LEVEL: 'warn',
    // The bench measures throughput, not the limiter.
    TOKEN_RATE_LIMIT_PER_CLIENT: '100000000',
    API_RATE_LIMIT_PER_TOKEN: '100000000',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let banner = '';
server.stdout.on('data', (chunk) => (banner += chunk));

try {
  await waitForReady();
  const clientId = /client_id\s+(\S+)/.exec(banner)[1];
  const clientSecret = /client_secret\s+(\S+)/.exec(banner)[1];
  const tokenBody = JSON.stringify({
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: clientSecret,
    scope: 'orders:read orders:write products:read customer:auth marketplace:import',
  });
  const token = (
    await (
      await fetch(`${base}/builders/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: tokenBody,
      })
    ).json()
  ).access_token;
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const orderBody = JSON.stringify({
    customer: { name: 'Bench', email: 'bench@example.com' },
    shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
    items: [
      { product_id: 1, quantity: 2 },
      { product_id: 3, quantity: 3 },
    ],
  });
  let orderId = 0;
  for (let i = 0; i < 200; i++) {
    orderId = (
      await (
        await fetch(`${base}/v1/orders`, { method: 'POST', headers: auth, body: orderBody })
      ).json()
    ).id;
  }

  const scenarios = [
    ['GET /health/live (baseline)', { path: '/health/live' }],
    [
      'POST /builders/oauth/token',
      {
        method: 'POST',
        path: '/builders/oauth/token',
        headers: { 'content-type': 'application/json' },
        body: tokenBody,
      },
    ],
    ['GET /v1/products/1', { path: '/v1/products/1', headers: auth }],
    ['GET /v1/orders/{id}', { path: `/v1/orders/${orderId}`, headers: auth }],
    ['GET /v1/orders?limit=20', { path: '/v1/orders?limit=20', headers: auth }],
    ['POST /v1/orders', { method: 'POST', path: '/v1/orders', headers: auth, body: orderBody }],
  ];
  const rows = [];
  for (const [name, request] of scenarios) {
    const { path, ...options } = request;
    const result = await autocannon({
      url: `${base}${path}`,
      connections,
      duration: seconds,
      ...options,
    });
    rows.push({
      scenario: name,
      'req/s': Math.round(result.requests.average),
      'p50 ms': result.latency.p50,
      'p99 ms': result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
    });
  }
  console.log(`\n${connections} connections, ${seconds} s per scenario, Node ${process.version}\n`);
  console.table(rows);

  // Marketplace imports: accepted per second over HTTP, then drained per second by the
  // in-process workers (WORKER_CONCURRENCY × IMPORT_BATCH_SIZE defaults).
  const importedSoFar = async () =>
    (await (await fetch(`${base}/v1/orders?limit=1`, { headers: auth })).json()).meta.total;
  const baseline = await importedSoFar();
  let sequence = 0;
  const acceptStart = Date.now();
  const accepted = await autocannon({
    url: `${base}/v1/marketplace/orders/import`,
    method: 'POST',
    headers: auth,
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            marketplace: 'bench',
            external_order_id: `B-${sequence++}`,
            customer: { name: 'Bench', email: 'bench@example.com' },
            shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
            items: [{ sku: 'MUG-LOGO', name: 'Mug', quantity: 2, unit_price: 12.5, total: 25 }],
          }),
        }),
      },
    ],
  });
  const acceptedCount = accepted['2xx'];
  const backlog = acceptedCount - ((await importedSoFar()) - baseline);
  const acceptEnd = Date.now();
  let done = 0;
  while (done < acceptedCount && Date.now() - acceptStart < 300_000) {
    done = (await importedSoFar()) - baseline;
    if (done < acceptedCount) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const elapsed = (Date.now() - acceptStart) / 1000;
  console.log('\nMarketplace imports (workers in the API process, defaults):\n');
  console.table([
    { measure: 'accepted/s (202)', value: Math.round(accepted.requests.average) },
    { measure: 'accept p99 ms', value: accepted.latency.p99 },
    { measure: 'accepted in total', value: acceptedCount },
    { measure: 'backlog when accepting stopped', value: backlog },
    {
      measure: 'imported/s draining the backlog',
      value: Math.round(backlog / ((Date.now() - acceptEnd) / 1000)),
    },
    { measure: 'imported/s, first accept to last import', value: Math.round(done / elapsed) },
  ]);

  // Customer login is argon2id (19 MiB, t=2) on libuv's pool: 20 concurrent logins, and a
  // single client probing /health/live meanwhile to see whether the event loop stays free.
  const password = 'correct horse battery staple';
  await fetch(`${base}/v1/customers/register`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ name: 'Bench', email: 'bench@example.com', password }),
  });
  const loginBody = JSON.stringify({ email: 'bench@example.com', password });
  const single = await autocannon({
    url: `${base}/v1/customers/login`,
    method: 'POST',
    headers: auth,
    body: loginBody,
    connections: 1,
    duration: seconds,
  });
  const [logins, probe] = await Promise.all([
    autocannon({
      url: `${base}/v1/customers/login`,
      method: 'POST',
      headers: auth,
      body: loginBody,
      connections: 20,
      duration: seconds,
    }),
    autocannon({ url: `${base}/health/live`, connections: 1, duration: seconds }),
  ]);
  console.log('\n20 concurrent customer logins, with one client probing /health/live:\n');
  console.table([
    { measure: 'login p50 ms, one at a time', value: single.latency.p50 },
    { measure: 'logins/s', value: Math.round(logins.requests.average) },
    { measure: 'login p50 ms', value: logins.latency.p50 },
    { measure: 'login p99 ms', value: logins.latency.p99 },
    { measure: 'login non-2xx', value: logins.non2xx },
    { measure: '/health/live p50 ms during logins', value: probe.latency.p50 },
    { measure: '/health/live p99 ms during logins', value: probe.latency.p99 },
  ]);
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  await rm(dataDir, { recursive: true, force: true });
}

async function waitForReady() {
  for (let i = 0; i < 600; i++) {
    const ok = await fetch(`${base}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('server did not become ready');
}
