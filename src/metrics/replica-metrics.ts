import { Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { ReadReplicas } from '../database/read-replicas.service.js';
import { HttpMetrics } from './http-metrics.js';

/** The read replicas' lag and rotation, and the reads each pool served, read at each scrape. */
@Injectable()
export class ReplicaMetrics {
  readonly lag: Gauge;
  readonly inRotation: Gauge;
  readonly reads: Counter;

  constructor(metrics: HttpMetrics, replicas: ReadReplicas) {
    const registers = [metrics.registry];
    this.lag = new Gauge({
      name: 'storefront_read_replica_lag_seconds',
      help: 'Replay lag of each read replica at its last check (+Inf: not answering)',
      labelNames: ['replica'] as const,
      registers,
      collect() {
        for (const r of replicas.state().replicas) this.set({ replica: r.name }, r.lagMs / 1000);
      },
    });
    this.inRotation = new Gauge({
      name: 'storefront_read_replica_in_rotation',
      help: '1 while a read replica serves reads, 0 while it is left out',
      labelNames: ['replica'] as const,
      registers,
      collect() {
        for (const r of replicas.state().replicas) this.set({ replica: r.name }, r.usable ? 1 : 0);
      },
    });
    this.reads = new Counter({
      name: 'storefront_replica_eligible_reads_total',
      help: 'Reads a replica may serve (CONTRACT 8), by the pool that served them',
      labelNames: ['pool'] as const,
      registers,
      collect() {
        const { replicas: all, primaryReads } = replicas.state();
        this.reset();
        this.inc({ pool: 'primary' }, primaryReads);
        for (const r of all) this.inc({ pool: r.name }, r.reads);
      },
    });
  }
}
