import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { processFaults } from '../common/process-faults.js';

/**
 * One registry per application (not prom-client's global one, so that several apps in one
 * process, as in tests, do not collide): process metrics and request durations by route.
 */
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  /** Read at each scrape from the process-wide counts of the last-resort policy. */
  private readonly faults = new Counter({
    name: 'process_unhandled_faults_total',
    help: 'Errors no code handled: rejected promises nobody awaited, uncaught exceptions',
    labelNames: ['kind'] as const,
    registers: [this.registry],
    collect() {
      this.reset();
      this.inc({ kind: 'unhandled_rejection' }, processFaults.unhandledRejections);
      this.inc({ kind: 'uncaught_exception' }, processFaults.uncaughtExceptions);
    },
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** `route` is the template (`/v1/orders/:id`), never the raw URL: bounded label values. */
  observe(method: string, route: string | undefined, status: number, milliseconds: number): void {
    this.durations.observe(
      { method, route: route ?? 'unmatched', status: String(status) },
      milliseconds / 1000,
    );
  }
}
