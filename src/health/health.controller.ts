import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import { ApiErrors } from '../common/errors/api-error.decorator.js';
import { AppError } from '../common/errors/app-error.js';
import { DatabaseProbe } from './database-probe.js';

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: DatabaseProbe,
  ) {}

  /** The process answers; says nothing of its dependencies (restart on failure). */
  @Get('live')
  @ApiOperation({
    summary: 'Liveness: the process serves requests',
    description:
      'Always `{"status": "ok"}` while the process answers; it checks no dependency, so a ' +
      'failure means restart the process. Public: no token.',
  })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Ready for traffic: the database answers (take out of rotation on failure). */
  @Get('ready')
  @ApiOperation({
    summary: 'Readiness: the database answers within 1 s',
    description:
      'Pings the database with a 1-second timeout, on a connection of its own (a flood of ' +
      'requests never makes a healthy database look down): 200 when it answers, else 503 ' +
      '`unavailable` with `Retry-After: 5` (take the instance out of rotation); 200 again ' +
      'on the first probe after the database answers. Public: no token.',
  })
  @ApiOkResponse({ schema: { example: { status: 'ok', info: { database: { status: 'up' } } } } })
  @ApiErrors({ unavailable: 'the database does not answer' })
  async ready(): Promise<HealthCheckResult> {
    try {
      return await this.health.check([
        async () => {
          await this.database.ping();
          return { database: { status: 'up' as const } };
        },
      ]);
    } catch {
      throw new AppError('unavailable', 'The database does not answer', {
        details: [{ field: 'database', message: 'ping failed or timed out' }],
        headers: { 'retry-after': '5' },
      });
    }
  }
}
