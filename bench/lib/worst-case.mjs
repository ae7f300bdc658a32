// npm run bench -- --worst-case: the process's memory under the largest reads one tenant can
// ask for (CONTRACT section 4), with the heap flags `npm start` runs with.
//
// One app makes 100 products with the longest names, 100 orders of the largest shape (100
// lines, a 5,000-character note, 50 tags of 40 and 50 metadata values of 500 characters, all
// emoji, one email), then PATCHes one of them BENCH_WORST_PATCHES times (1,000), each writing
// an order.updated event that carries the whole order. Then eight reads at once, twice over:
// two order timelines, two feed pages of order.updated at limit 500, two order list pages of
// 100 and two data exports of the email. It prints each answer's size and time, the peak RSS
// (VmHWM) and the largest heap V8 reported (--trace-gc) during the burst, and whether a small
// read of another order was served meanwhile.
import { readFile } from 'node:fs/promises';
import { appToken, call, inParallel } from './api.mjs';

// 4-byte characters in UTF-8 (two UTF-16 units each): U+1F600 to U+1F627.
const EMOJI = Array.from({ length: 40 }, (_, i) => String.fromCodePoint(0x1f600 + i));
const emoji = (length, offset = 0) =>
  Array.from({ length }, (_, i) => EMOJI[(i + offset) % EMOJI.length]).join('');

/** The largest order body the contract allows, on `products` (100 ids). */
function largestOrder(products, email) {
  return {
    customer: { name: emoji(200), email, phone: '+44 20 7946 0000' },
    shipping_address: {
      country: 'GB',
      city: emoji(200, 1),
      address: emoji(200, 2),
      district: emoji(200, 3),
      postal_code: emoji(200, 4),
    },
    items: products.map((id) => ({ product_id: id, quantity: 1 })),
  };
}

/** The largest note, tags and metadata, which a PATCH sets (an order is created without). */
function largestPatch() {
  return {
    note: emoji(5000),
    // Case-insensitively unique: each tag starts at its own place in the emoji list.
    tags: Array.from({ length: 50 }, (_, i) => `${i}`.padStart(2, '0') + emoji(38, i)),
    metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`key_${i}`, emoji(500, i)])),
  };
}

async function peakRss(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

/** The largest heap (MB, before collection) in --trace-gc lines since `from`. */
function largestHeap(gcLog, from) {
  let largest = 0;
  for (const match of gcLog
    .slice(from)
    .matchAll(/: (?:Scavenge|Mark-Compact|Mark-sweep)[^\n]*? ([\d.]+) \(([\d.]+)\) ->/g)) {
    largest = Math.max(largest, Number(match[1]));
  }
  return largest;
}

/** One request, timed; a refused or broken connection is a result too (status 'ERR'). */
async function timed(name, request) {
  const started = performance.now();
  try {
    const response = await request();
    const bytes = (await response.arrayBuffer()).byteLength;
    return { path: name, status: response.status, bytes, ms: performance.now() - started };
  } catch (error) {
    return { path: name, status: 'ERR', bytes: 0, ms: performance.now() - started, error };
  }
}

const timedGet = (base, path, token) =>
  timed(path, () => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } }));

export async function worstCase(service, { patches }) {
  let gcLog = '';
  service.child.stdout.on('data', (chunk) => (gcLog += chunk));
  const { base } = service;
  const token = await appToken(
    base,
    service.clientId,
    service.clientSecret,
    'orders:read orders:write products:write events:read customer:privacy',
  );
  const products = await inParallel(100, 8, async (i) => {
    const body = { sku: `WORST-${i}-${Date.now()}`, name: emoji(200, i), price: 1 };
    return (await call(base, 'POST', '/v1/products', { token, body, expect: 201 })).id;
  });
  const email = `worst-${Date.now()}@example.com`;
  const body = largestOrder(products, email);
  const orders = await inParallel(100, 8, async () => {
    const { id } = await call(base, 'POST', '/v1/orders', { token, body, expect: 201 });
    await call(base, 'PATCH', `/v1/orders/${id}`, { token, body: largestPatch() });
    return id;
  });
  const target = orders[0];
  await inParallel(patches, 8, async (i) => {
    const patch = { metadata: { key_0: `${i}`.padStart(3, '0') + emoji(497) } };
    await call(base, 'PATCH', `/v1/orders/${target}`, { token, body: patch });
  });
  const small = (
    await call(base, 'POST', '/v1/orders', {
      token,
      body: {
        ...body,
        items: [{ product_id: products[0], quantity: 1 }],
      },
      expect: 201,
    })
  ).id;
  const reads = [
    `/v1/orders/${target}/events`,
    `/v1/orders/${target}/events?limit=500`,
    '/v1/events?types=order.updated&limit=500',
    '/v1/events?types=order.updated&limit=500',
    '/v1/orders?limit=100',
    '/v1/orders?limit=100',
  ];
  const exportOne = () =>
    timed('POST /v1/customers/data-exports', () =>
      fetch(`${base}/v1/customers/data-exports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email }),
      }),
    );
  const rssBefore = await peakRss(service.pid);
  const gcFrom = gcLog.length;
  const results = [];
  const smallReads = [];
  for (let round = 0; round < 2; round++) {
    const burst = Promise.all([
      ...reads.map((path) => timedGet(base, path, token)),
      exportOne(),
      exportOne(),
    ]);
    // A small read of another order, one after the other, until the burst has been answered.
    const state = { done: false };
    const probe = (async () => {
      while (!state.done) smallReads.push(await timedGet(base, `/v1/orders/${small}`, token));
    })();
    results.push(...(await burst));
    state.done = true;
    await probe;
  }
  const alive = await timedGet(base, '/health/ready', token);
  return report({
    results,
    rssBefore,
    rssPeak: await peakRss(service.pid),
    heapPeakMb: largestHeap(gcLog, gcFrom),
    smallReads,
    alive,
    exited: service.child.exitCode,
    patches,
  });
}

/** The measure as a BENCHMARKS.md section body, and what failed. */
function report(outcome) {
  const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);
  const lines = [
    `${outcome.patches} PATCHes of one largest order, then eight reads at once, twice:`,
    '',
    '| status | MB | ms | read |',
    '| --- | --- | --- | --- |',
    ...outcome.results.map(
      (r) => `| ${r.status} | ${mb(r.bytes)} | ${r.ms.toFixed(0)} | \`${r.path}\` |`,
    ),
    '',
  ];
  const small = outcome.smallReads.map((r) => r.ms).sort((a, b) => a - b);
  const ok = outcome.smallReads.filter((r) => r.status === 200).length;
  lines.push(
    `- A small read of another order meanwhile: ${ok} of ${small.length} answered 200, ` +
      `p50 ${small[Math.floor(small.length / 2)]?.toFixed(0)} ms, max ${small.at(-1)?.toFixed(0)} ms.`,
    `- Peak RSS (VmHWM): ${mb(outcome.rssBefore)} MB before the burst, ${mb(outcome.rssPeak)} MB after it; ` +
      `largest heap during it ${outcome.heapPeakMb.toFixed(1)} MB (--trace-gc, before a collection).`,
    `- Afterwards: /health/ready ${outcome.alive.status}; the process ${outcome.exited === null ? 'runs' : `exited (${outcome.exited})`}.`,
  );
  const failures = [
    ...outcome.results.filter((r) => r.status !== 200).map((r) => `${r.path} answered ${r.status}`),
    ...(ok === small.length ? [] : [`${small.length - ok} small reads failed`]),
    ...(outcome.alive.status === 200 ? [] : ['the service did not answer afterwards']),
  ];
  return { markdown: lines.join('\n'), failures };
}
