import { type DynamicModule, Module } from '@nestjs/common';
import { HttpMetrics } from './http-metrics.js';
import { MetricsController } from './metrics.controller.js';
import { ReplicaMetrics } from './replica-metrics.js';

@Module({})
export class MetricsModule {
  /** The instance is made with the Fastify adapter, whose hook feeds it. */
  static register(metrics: HttpMetrics): DynamicModule {
    return {
      module: MetricsModule,
      controllers: [MetricsController],
      providers: [{ provide: HttpMetrics, useValue: metrics }, ReplicaMetrics],
    };
  }
}
