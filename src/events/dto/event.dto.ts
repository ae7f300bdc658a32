import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { QueryInt } from '../../common/pagination.js';
import { CommaListOf } from '../../common/query-list.js';
import { EVENT_TYPES, type EventType } from '../../outbox/event-types.js';

/**
 * Any event: the `Event` schema, `oneOf` the payload schemas by `type`. The OpenAPI document
 * adds it (openapi/event-payloads.ts), so the feed does not import every feature's DTOs.
 */
const ANY_EVENT = { $ref: '#/components/schemas/Event' };

/** A page of events (the feed, an order's timeline): where it starts, and how many at most. */
export class EventPageQuery {
  @ApiPropertyOptional({
    description:
      'A `next_cursor` from an earlier page of the same events: the next page starts just after it. Without it: from the oldest retained event.',
  })
  @IsOptional()
  @IsString()
  after?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500, default: 100 })
  @QueryInt(1, 500)
  limit = 100;
}

export class FeedQuery extends EventPageQuery {
  @ApiPropertyOptional({
    description: `Comma-separated event types to keep (${EVENT_TYPES.join(', ')}); a cursor is a place in the whole feed, so the filter may change between pages`,
    type: String,
    example: 'order.created,order.status_changed',
  })
  @IsOptional()
  @CommaListOf(EVENT_TYPES, 'event types')
  types?: EventType[];
}

export class EventDto {
  @ApiProperty({
    description: 'Unique and stable; the `webhook-id` of its deliveries',
    example: 'evt_3f1c9a0b7d2e4c5f8a6b1c2d3e4f5a6b',
  })
  id!: string;
  @ApiProperty({ enum: EVENT_TYPES, example: 'order.created' }) type!: EventType;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:15:00.000Z' }) created_at!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      '`object`: the Order (order.*), the import status document (marketplace_import.failed), the Customer, the App without secrets (app.*), `{id}` of the token (token.revoked) or the endpoint (endpoint.disabled); `previous_status` on order.status_changed',
  })
  data!: Record<string, unknown>;
}

export class EventPageDto {
  @ApiProperty({ type: 'array', items: ANY_EVENT, description: 'One schema per event type' })
  data!: EventDto[];
  @ApiProperty({
    description: 'Where to continue (pass as `after`); returned even when `data` is empty',
    example: 'ZTEuNDgyMTMuMTIwNw',
  })
  next_cursor!: string;
  @ApiProperty({ description: 'More events are available now', example: false })
  has_more!: boolean;
}
