// Service-only measures beside the ratio: marketplace imports (accepted, then drained by the
// in-process workers), customer logins (argon2id, excluded from the ratio by design) and
// webhook delivery lag (webhooks.mjs).
import autocannon from 'autocannon';
import { call } from './api.mjs';
import { table } from './report.mjs';
import { webhooks } from './webhooks.mjs';

export async function extras(service, token, { connections, seconds }) {
  return [
    await imports(service, token, { connections, seconds }),
    await logins(service, token, seconds),
    await webhooks(service, { connections, seconds }),
  ].join('\n');
}

async function imports(service, token, { connections, seconds }) {
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const total = async () =>
    (await call(service.base, 'GET', '/v1/orders?limit=1', { token })).meta.total;
  const before = await total();
  let sequence = 0;
  const started = Date.now();
  const accepted = await autocannon({
    url: `${service.base}/v1/marketplace/orders/import`,
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
            external_order_id: `B-${started}-${sequence++}`,
            customer: { name: 'Bench', email: 'bench@example.com' },
            shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
            items: [{ sku: 'MUG-LOGO', name: 'Mug', quantity: 2, unit_price: 12.5, total: 25 }],
          }),
        }),
      },
    ],
  });
  const count = accepted['2xx'];
  const acceptEnd = Date.now();
  const backlog = count - ((await total()) - before);
  let done = 0;
  while (done < count && Date.now() - started < 120_000) {
    done = (await total()) - before;
    if (done < count) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const drainSeconds = (Date.now() - acceptEnd) / 1000;
  return [
    '',
    `Marketplace imports (service only; workers in the API process with their defaults), ${connections} connections for ${seconds} s:`,
    '',
    table(
      ['measure', 'value'],
      [
        ['accepted/s (202)', Math.round(count / accepted.duration)],
        ['accept p50 / p99 ms', `${accepted.latency.p50} / ${accepted.latency.p99}`],
        ['accept non-2xx', accepted.non2xx],
        ['backlog when accepting stopped', backlog],
        ['imported/s draining the backlog', Math.round(backlog / drainSeconds)],
        [
          'imported/s, first accept to last import',
          Math.round(done / ((Date.now() - started) / 1000)),
        ],
        ['all imported', done >= count ? 'yes' : `no: ${done} of ${count} after 120 s`],
      ],
    ),
  ].join('\n');
}

async function logins(service, token, seconds) {
  const password = 'correct horse battery staple';
  const email = `login-${Date.now()}@example.com`;
  await call(service.base, 'POST', '/v1/customers/register', {
    token,
    body: { name: 'Bench Login', email, password },
    expect: 201,
  });
  const login = {
    url: `${service.base}/v1/customers/login`,
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
    duration: seconds,
  };
  const single = await autocannon({ ...login, connections: 1 });
  const [many, probe] = await Promise.all([
    autocannon({ ...login, connections: 20 }),
    autocannon({ url: `${service.base}/health/live`, connections: 1, duration: seconds }),
  ]);
  return [
    '',
    `Customer logins (argon2id; service only), one at a time, then 20 at once while one client probes /health/live, ${seconds} s each:`,
    '',
    table(
      ['measure', 'value'],
      [
        ['login p50 ms, one at a time', single.latency.p50],
        ['logins/s (200), one at a time', Math.round(single['2xx'] / single.duration)],
        ['logins/s (200), 20 at once', Math.round(many['2xx'] / many.duration)],
        ['answers p50 / p99 ms, 20 at once', `${many.latency.p50} / ${many.latency.p99}`],
        // 429 is the designed answer when password hashing is saturated (bounded queue).
        ['non-2xx, 20 at once (429: the argon2 lane is full, by design)', statusCounts(many)],
        ['non-2xx, one at a time', statusCounts(single)],
        ['/health/live p50 / p99 ms during logins', `${probe.latency.p50} / ${probe.latency.p99}`],
      ],
    ),
  ].join('\n');
}

/** "0", or the count of each non-2xx status, such as "3369 (429: 3369)". */
function statusCounts(result) {
  const codes = Object.entries(result.statusCodeStats)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, { count }]) => `${code}: ${count}`);
  return codes.length === 0 ? '0' : `${result.non2xx} (${codes.join(', ')})`;
}
