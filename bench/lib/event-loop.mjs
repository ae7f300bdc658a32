// Event-loop delay of each server over a measured window.
//
// The service: prom-client's collectDefaultMetrics keeps a perf_hooks monitorEventLoopDelay
// histogram (10 ms resolution) and, on every scrape of /metrics, publishes its percentiles
// as nodejs_eventloop_lag_*_seconds and then RESETS it (prom-client 15,
// lib/metrics/eventLoopLag.js). So a scrape just before a run starts a window and a scrape
// just after reads that window alone. The reference keeps the same histogram and answers it
// (and resets it) at /__bench/eld, and so does the floor server (BENCH_FLOOR=1).
//
// Both values include the 10 ms sampling interval: an idle loop reads about 10.2 ms.

/** Starts a window (the scrape's own values are those of the time before, and ignored). */
export async function startWindow(target) {
  await read(target);
}

/** p99 (and max) event-loop delay in ms since startWindow. */
export async function endWindow(target) {
  return read(target);
}

async function read(target) {
  if (target.name !== 'service') {
    const response = await fetch(`${target.base}/__bench/eld`);
    if (!response.ok) throw new Error(`${target.name} /__bench/eld answered ${response.status}`);
    const { p99_ms, max_ms } = await response.json();
    return { p99Ms: p99_ms, maxMs: max_ms };
  }
  const response = await fetch(`${target.base}/metrics`);
  if (!response.ok) throw new Error(`service /metrics answered ${response.status}`);
  const text = await response.text();
  const gauge = (name) => {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
    if (!match) throw new Error(`${name} is missing from /metrics`);
    return Number(match[1]) * 1000;
  };
  return {
    p99Ms: gauge('nodejs_eventloop_lag_p99_seconds'),
    maxMs: gauge('nodejs_eventloop_lag_max_seconds'),
  };
}
