import type { EventType } from '../outbox/event-types.js';
import type { EventDto } from './dto/event.dto.js';

/** One event with its `data` parsed (a webhook delivery's). */
export interface ParsedEvent {
  id: string;
  type: EventType;
  data: Record<string, unknown>;
  created_at: Date;
}

export function toEventDto(event: ParsedEvent): EventDto {
  return {
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    data: event.data,
  };
}
