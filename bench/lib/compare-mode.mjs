// The default run: each hot path on the service and on the reference, alternately; the
// ratio of successful requests per second, latencies, event-loop delay and peak RSS.
import pg from 'pg';
import { appToken, call, inParallel } from './api.mjs';
import { benchOrder, hotPaths } from './hot-paths.mjs';
import { compare } from './load.mjs';
import { analyze, memoryOf, referencePrepared, startFloor, startReference } from './processes.mjs';
import { fixed, table } from './report.mjs';
import { checkSameJson } from './same-json.mjs';

// CONTRACT 7: every ratio at least 0.65 (goal 0.75); the service's peak RSS at most 100 MB
// above the reference's on the same line.
const RATIO_FLOOR = 0.65;
const RATIO_GOAL = 0.75;
const RSS_ABOVE_REFERENCE_MB = 100;
/** Tracked products the stock-tracked create orders from, three per order in turn. */
const STOCK_PRODUCTS = 48;

/**
 * Returns { markdown, failures }: failures name every non-2xx answer or socket error, and
 * the run must then fail.
 */
export async function compareMode(service, options, extras) {
  const { seconds, connections, rounds, warmup, seedOrders } = options;
  const token = await appToken(
    service.base,
    service.clientId,
    service.clientSecret,
    'orders:read orders:write customer:auth marketplace:import',
  );
  const { appId, productIds, stockIds } = await demoApp(service);
  const orderBody = benchOrder(productIds);
  console.log(`seeding ${seedOrders} orders through the API...`);
  const orderIds = await inParallel(seedOrders, 8, async (i) => {
    const body = benchOrder(productIds, `seed-${i % 50}@example.com`);
    return (await call(service.base, 'POST', '/v1/orders', { token, body, expect: 201 })).id;
  });
  await analyze(service.databaseUrl);

  const reference = await startReference({
    databaseUrl: service.databaseUrl,
    dataDir: service.dataDir,
    tenantId: service.tenantId,
    appId,
    publicUrl: `http://localhost:${service.port}`,
  });
  const failures = [];
  const rows = [];
  const eldRows = [];
  const cpuRows = [];
  const floorRows = [];
  let referenceMemory;
  let floor;
  try {
    const tokenBody = {
      grant_type: 'client_credentials',
      client_id: service.clientId,
      client_secret: service.clientSecret,
      scope: 'orders:read orders:write',
    };
    await checkSameJson(service, reference, {
      token,
      orderId: orderIds[0],
      tokenBody,
      orderBody,
      stockOrderBody: benchOrder(stockIds.slice(0, 3)),
    });
    console.log("the reference answers every hot path with the service's JSON");

    // BENCH_ONLY narrows the run to the paths whose name contains it (while working on one).
    const only = process.env.BENCH_ONLY;
    const scenarios = hotPaths({ ...service, token, orderIds, productIds, stockIds }).filter(
      (scenario) => !only || scenario.name.includes(only),
    );
    // BENCH_FLOOR=1: the framework alone (bench/floor-server.mjs) beside them on get by id.
    floor =
      process.env.BENCH_FLOOR === '1'
        ? await startFloor({ databaseUrl: service.databaseUrl, tenantId: service.tenantId })
        : undefined;
    if (floor) await sameOrderJson(floor, reference, token, orderIds[0]);
    for (const scenario of scenarios) {
      const withFloor = floor && scenario.name === 'GET /v1/orders/{id}';
      const result = await compare(
        scenario,
        // The floor after the reference: each round's service ÷ reference stays two runs
        // taken one after the other.
        withFloor ? [service, reference, floor] : [service, reference],
        { connections, seconds, rounds, warmup },
      );
      if (withFloor) {
        const f = result.floor;
        if (f.non2xx > 0 || f.errors > 0) {
          failures.push(`${scenario.name} on the floor: ${f.non2xx} non-2xx, ${f.errors} errors`);
        }
        floorRows.push(floorRow(result));
      }
      const s = result.service;
      const r = result.reference;
      const ratio = s.rps / r.rps;
      for (const [who, x] of [
        ['service', s],
        ['reference', r],
      ]) {
        if (x.non2xx > 0 || x.errors > 0) {
          failures.push(
            `${scenario.name} on the ${who}: ${x.non2xx} non-2xx ${JSON.stringify(x.statusCodes)}, ${x.errors} errors`,
          );
        }
      }
      const row = [
        scenario.name,
        fixed(s.rps),
        fixed(r.rps),
        `${fixed(ratio, 2)} ${ratio >= RATIO_GOAL ? '✓ goal' : ratio >= RATIO_FLOOR ? '✓' : '✗'}`,
        // Each round's service run over the reference run right after it: the spread shows
        // how much the machine moved during the measure.
        s.perRound.map((x, i) => fixed(x / r.perRound[i], 2)).join(', '),
        `${s.p50} / ${s.p99}`,
        `${r.p50} / ${r.p99}`,
        `${s.non2xx + s.errors} / ${r.non2xx + r.errors}`,
      ];
      rows.push(row);
      eldRows.push([scenario.name, fixed(s.eldP99, 1), fixed(r.eldP99, 1)]);
      cpuRows.push([
        scenario.name,
        fixed(s.cpuUsPerRequest),
        fixed(r.cpuUsPerRequest),
        fixed(r.cpuUsPerRequest / s.cpuUsPerRequest, 2),
      ]);
      console.log(
        `${scenario.name}: service ${row[1]} req/s (rounds ${s.perRound.map((x) => fixed(x)).join(', ')}), ` +
          `reference ${row[2]} req/s (rounds ${r.perRound.map((x) => fixed(x)).join(', ')}), ratio ${row[3]} (per round ${row[4]})`,
      );
    }
  } finally {
    await floor?.stop();
    referenceMemory = memoryOf(reference.pid);
    await reference.stop();
  }
  const serviceMemory = memoryOf(service.pid);
  const extraMarkdown = extras ? await extras(service, token) : '';
  const finalMemory = memoryOf(service.pid);
  const rssBound = referenceMemory.peakMb + RSS_ABOVE_REFERENCE_MB;

  const markdown = [
    `${connections} connections, ${seconds} s per run, ${rounds} round(s) of service then reference ` +
      `after ${warmup} s of warm-up each; ${seedOrders} orders seeded through the API first, then ANALYZE. ` +
      `Ratio = service ÷ reference of 2xx requests per second (target ≥ ${RATIO_FLOOR}, goal ${RATIO_GOAL}). ` +
      (referencePrepared()
        ? 'The reference names its statements (planned once per connection), as the service does on its hot paths.'
        : 'The reference sends its statements unnamed (BENCH_REFERENCE_PREPARED=0: planned on every execution).'),
    '',
    table(
      [
        'hot path',
        'service req/s',
        'reference req/s',
        'ratio',
        'ratio per round',
        'service p50 / p99 ms',
        'reference p50 / p99 ms',
        'non-2xx + errors (S / R)',
      ],
      rows,
    ),
    '',
    'CPU time of each server process per successful request (user + system, over the rounds; ' +
      'the database and the load generator not included). Reference ÷ service is the ratio ' +
      'to expect where the server process alone is the bottleneck:',
    '',
    table(['hot path', 'service µs', 'reference µs', 'reference ÷ service'], cpuRows),
    '',
    'Event-loop delay p99 under load (worst round; 10 ms resolution, idle ≈ 10.2 ms):',
    '',
    table(['hot path', 'service ms', 'reference ms'], eldRows),
    '',
    `Memory (VmHWM = peak RSS over the process life; bound: the reference's peak + ${RSS_ABOVE_REFERENCE_MB} MB):`,
    '',
    table(
      ['process', 'peak RSS MB', 'RSS at end MB', 'bound'],
      [
        [
          'service, after the hot paths',
          fixed(serviceMemory.peakMb),
          fixed(serviceMemory.rssMb),
          `≤ ${fixed(rssBound)} ${serviceMemory.peakMb <= rssBound ? '✓' : '✗'}`,
        ],
        ...(extras
          ? [
              [
                'service, after the extras too',
                fixed(finalMemory.peakMb),
                fixed(finalMemory.rssMb),
                `≤ ${fixed(rssBound)} ${finalMemory.peakMb <= rssBound ? '✓' : '✗'}`,
              ],
            ]
          : []),
        ['reference', fixed(referenceMemory.peakMb), fixed(referenceMemory.rssMb), ''],
      ],
    ),
    ...(floorRows.length
      ? [
          '',
          'The framework floor (BENCH_FLOOR=1, bench/floor-server.mjs: NestJS on Fastify, one guard, ' +
            "the reference's statement and JSON, nothing else) in the same rounds, against the reference:",
          '',
          table(
            ['hot path', 'req/s', 'ratio (rounds)', 'CPU µs per request', 'service CPU µs'],
            floorRows,
          ),
        ]
      : []),
    extraMarkdown,
  ].join('\n');
  return { markdown, failures };
}

/** The floor must answer get by id with the reference's body, or its figures mean nothing. */
async function sameOrderJson(floor, reference, token, orderId) {
  const [a, b] = await Promise.all(
    [floor, reference].map((t) =>
      fetch(`${t.base}/v1/orders/${orderId}`, {
        headers: { authorization: `Bearer ${token}` },
      }).then((r) => r.text()),
    ),
  );
  if (a !== b) throw new Error(`the floor's order differs from the reference's:\n${a}\n${b}`);
}

/** The floor's row: its throughput against the reference, per round too, and CPU. */
function floorRow({ service, floor, reference }) {
  const rounds = floor.perRound.map((x, i) => fixed(x / reference.perRound[i], 2)).join(', ');
  return [
    'GET /v1/orders/{id}',
    fixed(floor.rps),
    `${fixed(floor.rps / reference.rps, 2)} (${rounds})`,
    fixed(floor.cpuUsPerRequest),
    fixed(service.cpuUsPerRequest),
  ];
}

/** The demo app's id and the tenant's active products, read from the database. */
async function demoApp(service) {
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  try {
    const app = await client.query('SELECT id FROM apps WHERE client_id = $1', [service.clientId]);
    const products = await client.query(
      'SELECT id FROM products WHERE tenant_id = $1 AND active AND NOT inventory_tracked ORDER BY id LIMIT 3',
      [service.tenantId],
    );
    // Stock-tracked products for the tracked create, with stock that never runs out during a
    // run: written directly (the bench's setup, not a path it measures).
    const stock = await client.query(
      `INSERT INTO products (tenant_id, sku, name, price_minor, inventory_tracked, available)
       SELECT $1, 'BENCH-STOCK-' || g, 'Bench stock ' || g, 500 + g, true, 1000000000
       FROM generate_series(1, $2::int) AS g
       ON CONFLICT (tenant_id, sku) DO UPDATE SET inventory_tracked = true, available = 1000000000
       RETURNING id`,
      [service.tenantId, STOCK_PRODUCTS],
    );
    return {
      appId: Number(app.rows[0].id),
      productIds: products.rows.map((p) => Number(p.id)),
      stockIds: stock.rows.map((p) => Number(p.id)).sort((a, b) => a - b),
    };
  } finally {
    await client.end();
  }
}
