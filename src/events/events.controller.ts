import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppCtx, Authenticated } from '../auth/authenticated.decorator.js';
import { appScope } from '../auth/grants.js';
import type { AppContext } from '../auth/request-context.js';
import { ApiErrors } from '../common/errors/api-error.decorator.js';
import { EventPageDto, FeedQuery } from './dto/event.dto.js';
import { EventsService } from './events.service.js';
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
      'Follow `next_cursor` (as `after`) to see every event exactly once, including events of transactions that committed after a later one: an event is served once every transaction that could precede it has ended. Events of one transaction stay together. Admin-action events of an app are visible to that app only. Needs an app token with `events:read`.',
  })
  @ApiOkResponse({ type: EventPageDto })
  @ApiErrors({
    validation_failed: '`after` is not a cursor of this feed, `limit` or `types` malformed',
    cursor_expired: 'events after the cursor were removed by retention (EVENT_RETENTION_DAYS)',
  })
  feed(@AppCtx() ctx: AppContext, @Query(validated) query: FeedQuery): Promise<EventPageDto> {
    return this.events.feed(ctx, query);
  }
}
