// Load runs with autocannon: one scenario against the service and the reference in
// alternation (S R S R ...), summed over the rounds.
import autocannon from 'autocannon';
import { endWindow, startWindow } from './event-loop.mjs';
import { cpuSecondsOf } from './processes.mjs';

/**
 * One timed run. `scenario(target)` gives autocannon options for that target: method, path,
 * headers, body, or `requests` with a setupRequest (a fresh Idempotency-Key per request).
 * Returns autocannon's raw result (encoded histograms, so rounds can be merged).
 */
export function loadRun(target, scenario, { connections, seconds }) {
  const { path, ...options } = scenario.request(target);
  return autocannon({
    url: `${target.base}${path}`,
    connections,
    duration: seconds,
    skipAggregateResult: true,
    ...options,
  });
}

/**
 * Warms both targets, then runs `rounds` rounds of service-then-reference. Per target: the
 * successful (2xx) requests per second over all rounds, merged latency percentiles, non-2xx
 * and socket errors, CPU time per request, and the worst event-loop delay p99 of a round.
 */
export async function compare(scenario, targets, { connections, seconds, rounds, warmup }) {
  for (const target of targets) {
    if (warmup > 0) await loadRun(target, scenario, { connections, seconds: warmup });
  }
  const runs = new Map(targets.map((t) => [t.name, []]));
  const eld = new Map(targets.map((t) => [t.name, []]));
  const cpu = new Map(targets.map((t) => [t.name, 0]));
  for (let round = 0; round < rounds; round++) {
    for (const target of targets) {
      await startWindow(target);
      const cpuBefore = cpuSecondsOf(target.pid);
      runs.get(target.name).push(await loadRun(target, scenario, { connections, seconds }));
      cpu.set(target.name, cpu.get(target.name) + cpuSecondsOf(target.pid) - cpuBefore);
      eld.get(target.name).push(await endWindow(target));
    }
  }
  const summary = {};
  for (const target of targets) {
    const results = runs.get(target.name);
    const merged = autocannon.aggregateResult(results, { url: target.base, connections });
    const ok = results.reduce((sum, r) => sum + r['2xx'], 0);
    const duration = results.reduce((sum, r) => sum + r.duration, 0);
    summary[target.name] = {
      rps: ok / duration,
      ok,
      p50: merged.latency.p50,
      p99: merged.latency.p99,
      non2xx: merged.non2xx,
      errors: merged.errors + merged.timeouts,
      statusCodes: Object.fromEntries(
        Object.entries(merged.statusCodeStats).map(([code, { count }]) => [code, count]),
      ),
      eldP99: Math.max(...eld.get(target.name).map((e) => e.p99Ms)),
      // The server process's own CPU per successful request: what the framework costs,
      // far less moved by other work on the machine than requests per second.
      cpuUsPerRequest: (cpu.get(target.name) * 1e6) / ok,
      perRound: results.map((r) => r['2xx'] / r.duration),
    };
  }
  return summary;
}
