// Webhook delivery under load (CONTRACT 7): orders are created as fast as the service takes
// them, each order.created goes to a receiver on loopback, and the lag from the create's
// request to the receiver's answer is measured (an upper bound of commit → 2xx: the commit
// happens between the two). Then again while another tenant's endpoint never answers, so
// each of its deliveries waits out WEBHOOK_TIMEOUT_SECONDS.
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { promisify } from 'node:util';
import pg from 'pg';
import { appToken, call } from './api.mjs';
import { benchOrder } from './hot-paths.mjs';
import { table } from './report.mjs';

const run = promisify(execFile);
/** Target of CONTRACT 7. */
const P99_TARGET_MS = 1000;

export async function webhooks(service, { seconds, connections }) {
  const receiver = await startReceiver();
  try {
    const token = await appToken(
      service.base,
      service.clientId,
      service.clientSecret,
      'orders:write webhooks:write',
    );
    await endpoint(service, token, `${receiver.url}/fast`);
    const productIds = await demoProducts(service);
    const load = { service, token, productIds, receiver, seconds, connections };
    const alone = await measure(load);
    const noisy = await noisyTenant(service, receiver);
    let besideNoisy;
    try {
      besideNoisy = await measure(load);
    } finally {
      noisy.stop();
      await noisy.done;
    }
    const row = (name, m) => [
      name,
      m.created,
      Math.round(m.delivered / seconds),
      `${m.p50} / ${m.p99}`,
      m.backlog.join(' → '),
      m.drainMs === undefined ? 'no (60 s)' : `${m.drainMs} ms`,
    ];
    return [
      '',
      `Webhooks (service only): orders created by ${connections} connections for ${seconds} s, each order.created delivered to a receiver on loopback; lag from the create's request to the receiver's answer. Then the same while another tenant's endpoint never answers (its ${noisy.orders} orders' deliveries each wait out the timeout):`,
      '',
      table(
        [
          'run',
          'orders',
          'deliveries/s',
          'lag p50 / p99 ms',
          'backlog at ¼ ½ ¾ end',
          'all delivered after the load',
        ],
        [row('alone', alone), row("another tenant's endpoint times out", besideNoisy)],
      ),
      '',
      `Target (p99 ≤ ${P99_TARGET_MS} ms, every delivery made once the load stops): ${
        [alone, besideNoisy].every((m) => m.p99 <= P99_TARGET_MS && m.drainMs !== undefined)
          ? 'met'
          : 'MISSED'
      }.`,
    ].join('\n');
  } finally {
    await receiver.close();
  }
}

/** Creates orders with `connections` loops for `seconds`; the deliveries' lags. */
async function measure({ service, token, productIds, receiver, seconds, connections }) {
  const sent = new Map();
  receiver.arrivals.clear();
  const body = JSON.stringify(benchOrder(productIds));
  const end = performance.now() + seconds * 1000;
  const backlog = [];
  const sampler = setInterval(
    () => backlog.push(sent.size - delivered(sent, receiver)),
    (seconds * 1000) / 4,
  );
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const at = performance.now();
        const response = await fetch(`${service.base}/v1/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body,
        });
        const order = await response.json();
        if (response.status === 201) sent.set(order.id, at);
      }
    }),
  );
  clearInterval(sampler);
  backlog.push(sent.size - delivered(sent, receiver));
  const deliveredDuringLoad = delivered(sent, receiver);
  const stopped = performance.now();
  let drainMs;
  while (performance.now() - stopped < 60_000) {
    if (delivered(sent, receiver) >= sent.size) {
      drainMs = Math.round(performance.now() - stopped);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const lags = [...sent]
    .filter(([id]) => receiver.arrivals.has(id))
    .map(([id, at]) => receiver.arrivals.get(id) - at)
    .sort((a, b) => a - b);
  const pct = (p) => Math.round(lags[Math.min(lags.length - 1, Math.ceil(p * lags.length) - 1)]);
  return {
    created: sent.size,
    delivered: deliveredDuringLoad,
    p50: pct(0.5),
    p99: pct(0.99),
    backlog,
    drainMs,
  };
}

function delivered(sent, receiver) {
  let n = 0;
  for (const id of sent.keys()) if (receiver.arrivals.has(id)) n++;
  return n;
}

/** /fast answers 204 and records when each order's delivery arrived; /slow never answers. */
function startReceiver() {
  const arrivals = new Map();
  const server = createServer((request, response) => {
    if (request.url === '/slow') return; // held until the sender gives up
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString());
        if (event.type === 'order.created') arrivals.set(event.data.object.id, at);
      } catch {
        // not a delivery
      }
      response.writeHead(204).end();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        arrivals,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

async function endpoint(service, token, url) {
  await call(service.base, 'POST', '/v1/webhook-endpoints', {
    token,
    body: { url, event_types: ['order.created'] },
    expect: 201,
  });
}

/** Another tenant, its endpoint on /slow, and 10 orders a second until stopped. */
async function noisyTenant(service, receiver) {
  const cli = async (args) =>
    JSON.parse(
      (
        await run(process.execPath, ['dist/src/cli.js', ...args, '--json'], {
          env: service.env,
        })
      ).stdout,
    );
  const tenant = await cli(['tenant', 'create', '--name', 'Noisy', '--currency', 'USD']);
  const app = await cli([
    'app',
    'create',
    '--tenant',
    String(tenant.id),
    '--name',
    'Noisy',
    '--scopes',
    'orders:write webhooks:write',
  ]);
  const product = await cli([
    'product',
    'create',
    '--tenant',
    String(tenant.id),
    '--sku',
    'NOISY-1',
    '--name',
    'Noise',
    '--price',
    '1.00',
  ]);
  const token = await appToken(
    service.base,
    app.client_id,
    app.client_secret,
    'orders:write webhooks:write',
  );
  await endpoint(service, token, `${receiver.url}/slow`);
  const state = { going: true, orders: 0 };
  const body = benchOrder([product.id]);
  // An unexpected answer ends the loop; it is raised where `done` is awaited.
  const done = (async () => {
    while (state.going) {
      await call(service.base, 'POST', '/v1/orders', { token, body, expect: 201 });
      state.orders++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  done.catch(() => undefined);
  return {
    done,
    get orders() {
      return state.orders;
    },
    stop: () => (state.going = false),
  };
}

async function demoProducts(service) {
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT id FROM products WHERE tenant_id = $1 AND active AND NOT inventory_tracked ORDER BY id LIMIT 3',
      [service.tenantId],
    );
    return rows.map((r) => Number(r.id));
  } finally {
    await client.end();
  }
}
