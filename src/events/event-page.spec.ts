import { describe, expect, it } from 'vitest';
import { eventPageJson, fitEventPage, PAGE_BODY_LIMIT, type EventTextRow } from './event-page.js';

const at = new Date('2026-11-29T10:00:00.000Z');
const row = (n: number, data: string | null): EventTextRow => ({
  id: `evt_${n}`,
  type: 'order.updated',
  created_at: at,
  data,
});

describe('event pages', () => {
  it('serves the stored text as is, in the Event shape', () => {
    const { served, hasMore } = fitEventPage([row(1, '{"object": {"id": 1}}')], 10);
    const page = JSON.parse(
      eventPageJson(
        served.map((s) => s.json),
        'abc',
        hasMore,
      ),
    );
    expect(page).toEqual({
      data: [
        {
          id: 'evt_1',
          type: 'order.updated',
          created_at: at.toISOString(),
          data: { object: { id: 1 } },
        },
      ],
      next_cursor: 'abc',
      has_more: false,
    });
  });

  it('ends at the limit, and says more are left', () => {
    const rows = [1, 2, 3].map((n) => row(n, '{}'));
    const { served, hasMore } = fitEventPage(rows, 2);
    expect(served.map((s) => s.row.id)).toEqual(['evt_1', 'evt_2']);
    expect(hasMore).toBe(true);
  });

  it('ends before the body passes 4 MiB, counting UTF-8 bytes, with at least one event', () => {
    // 1 MiB of data each in 4-byte characters: 262,144 emoji (two UTF-16 units each).
    const emoji = '😀'.repeat(256 * 1024);
    const rows = [1, 2, 3, 4, 5].map((n) => row(n, `{"note": "${emoji}"}`));
    const { served, hasMore } = fitEventPage(rows, 500);
    expect(served).toHaveLength(3);
    expect(hasMore).toBe(true);
    const body = eventPageJson(
      served.map((s) => s.json),
      'abc',
      hasMore,
    );
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(PAGE_BODY_LIMIT);

    const huge = row(1, `{"note": "${'😀'.repeat(1024 * 1024 + 1)}"}`);
    const alone = fitEventPage([huge, row(2, '{}')], 500);
    expect(alone.served.map((s) => s.row.id)).toEqual(['evt_1']);
    expect(alone.hasMore).toBe(true);
  });

  it('takes a row PostgreSQL sent without its text as the sign of more', () => {
    const { served, hasMore } = fitEventPage([row(1, '{}'), row(2, null)], 500);
    expect(served).toHaveLength(1);
    expect(hasMore).toBe(true);
  });
});
