// npm run bench: the measuring instrument of docs/BEHAVIOUR.md#performance (see
// docs/BENCHMARKS.md).
//
//   npm run bench                          hot paths, service vs bench/reference-server.mjs
//   npm run bench -- --orders 1000000      scale mode: seed with the CLI, time single requests
//   npm run bench -- --worst-case          eight largest reads at once: memory (BENCH_WORST_PATCHES)
//   --write                                add the results to docs/BENCHMARKS.md
//   --no-extras                            skip the service-only import and login measures
//   --customers K                          scale mode: customers the seeded orders link to (1000)
//
// Environment: BENCH_SECONDS (5) per run, BENCH_CONNECTIONS (32), BENCH_ROUNDS (3) of service
// then reference, BENCH_WARMUP (3) seconds per target and path, BENCH_SEED_ORDERS (1000)
// orders made through the API before the hot paths, BENCH_SAMPLES (30) timed requests per
// path in scale mode, BENCH_SEED=api to seed the scale mode through the API (small N only),
// BENCH_REFERENCE_PREPARED=0 for a reference with unnamed (unprepared) statements,
// BENCH_ONLY=text to run only the hot paths whose name contains text, and
// BENCH_SERVICE_NODE_ARGS / BENCH_REFERENCE_NODE_ARGS for node flags such as
// "--cpu-prof --cpu-prof-dir=/tmp/prof" (profiles are written when the bench stops them).
import { parseArgs } from 'node:util';
import { compareMode } from './lib/compare-mode.mjs';
import { extras } from './lib/extras.mjs';
import { startService } from './lib/processes.mjs';
import { section, writeSection } from './lib/report.mjs';
import { scaleMode } from './lib/scale-mode.mjs';
import { worstCase } from './lib/worst-case.mjs';

const { values: args } = parseArgs({
  options: {
    orders: { type: 'string' },
    customers: { type: 'string', default: '1000' },
    write: { type: 'boolean', default: false },
    'no-extras': { type: 'boolean', default: false },
    'worst-case': { type: 'boolean', default: false },
  },
});
const number = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number`);
  return value;
};
const options = {
  seconds: number('BENCH_SECONDS', 5),
  connections: number('BENCH_CONNECTIONS', 32),
  rounds: number('BENCH_ROUNDS', 3),
  warmup: number('BENCH_WARMUP', 3),
  seedOrders: number('BENCH_SEED_ORDERS', 1000),
  samples: number('BENCH_SAMPLES', 30),
  worstPatches: number('BENCH_WORST_PATCHES', 1000),
};
const scale = args.orders !== undefined;
const worst = args['worst-case'];
if (scale && !/^[1-9]\d*$/.test(args.orders)) throw new Error('--orders takes a positive integer');

const command = commandLine();
console.log(`${command}\n`);
// The worst-case measure reads the largest heap from V8's own --trace-gc lines.
const service = await startService(worst ? ['--trace-gc'] : []);
let result;
try {
  result = worst
    ? await worstCase(service, { patches: options.worstPatches })
    : scale
      ? await scaleMode(service, {
          ...options,
          orders: Number(args.orders),
          customers: Number(args.customers),
        })
      : await compareMode(
          service,
          options,
          args['no-extras'] ? undefined : (s, token) => extras(s, token, options),
        );
} finally {
  await service.stop();
}

const text = section(
  worst ? 'Worst-case reads' : scale ? `Scale, ${args.orders} orders` : 'Hot paths',
  command,
  result.markdown,
);
console.log(`\n${text}`);
if (args.write) {
  await writeSection(text);
  console.log('written to docs/BENCHMARKS.md');
}
if (result.failures.length > 0) {
  console.error(`\nFAILED:\n${result.failures.map((f) => `  ${f}`).join('\n')}`);
  process.exitCode = 1;
}

/** The command as typed, with the BENCH_* variables that changed it. */
function commandLine() {
  const vars = Object.entries(process.env)
    .filter(([key]) => key.startsWith('BENCH_'))
    .map(([key, value]) => `${key}=${value}`);
  const rest = process.argv.slice(2);
  return [...vars, 'npm run bench', ...(rest.length > 0 ? ['--', ...rest] : [])].join(' ');
}
