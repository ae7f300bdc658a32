import type { EventDto } from './dto/event.dto.js';
import type { EventRow } from './events.repository.js';

export function toEventDto(row: EventRow): EventDto {
  return { id: row.id, type: row.type, created_at: row.created_at.toISOString(), data: row.data };
}
