import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AppCtx, Authenticated } from '../auth/authenticated.decorator.js';
import { appScope } from '../auth/grants.js';
import type { AppContext } from '../auth/request-context.js';
import { ApiErrors } from '../common/errors/api-error.decorator.js';
import { EventPageDto, FeedQuery } from './dto/event.dto.js';
import { EventsService } from './events.service.js';
import { jsonText } from '../common/http/json-text.js';
import { validated } from '../common/http/validated.js';

@ApiTags('events')
@Controller('v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @Authenticated(appScope('events:read'))
  @ApiOperation({
    summary: 'The change feed: every committed event of the tenant once, in commit order',
    description:
      'Follow `next_cursor` (as `after`) to see every event exactly once, including events of transactions that committed after a later one: an event is served once every transaction that could precede it has ended. Events of one transaction stay together. A page holds at most `limit` events and ends before its body passes 4 MiB (with at least one event; `has_more` says whether more are there now). Admin-action events of an app are visible to that app only. Needs an app token with `events:read`.',
  })
  @ApiOkResponse({ type: EventPageDto })
  @ApiErrors({
    validation_failed: '`after` is not a cursor of this feed, `limit` or `types` malformed',
    cursor_expired: 'events after the cursor were removed by retention (EVENT_RETENTION_DAYS)',
  })
  async feed(
    @AppCtx() ctx: AppContext,
    @Query(validated) query: FeedQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return jsonText(reply, await this.events.feed(ctx, query));
  }
}
