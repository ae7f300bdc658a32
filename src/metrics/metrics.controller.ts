import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { SCHEMES } from '../auth/openapi-security.js';
import { ApiErrors } from '../common/errors/api-error.decorator.js';
import { HttpMetrics } from './http-metrics.js';
import { MetricsTokenGuard } from './metrics-token.guard.js';

@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: HttpMetrics) {}

  @Get()
  @UseGuards(MetricsTokenGuard)
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOperation({
    summary: 'Prometheus metrics (process, HTTP durations by route and status)',
    description: 'Open unless METRICS_TOKEN is set; then `Authorization: Bearer <METRICS_TOKEN>`.',
  })
  // The token, or none while METRICS_TOKEN is unset.
  @ApiSecurity(SCHEMES.metrics)
  @ApiSecurity({})
  @ApiErrors({ unauthenticated: 'METRICS_TOKEN is set and the bearer token is missing or wrong' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format' })
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
