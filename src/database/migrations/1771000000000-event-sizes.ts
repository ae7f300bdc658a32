import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `events.size`: the bytes of the event's `data` as its writer serialized it. The feed and an
 * order's timeline end a page before its body passes 4 MiB (docs/BEHAVIOUR.md#limits): with
 * the size at hand, PostgreSQL cuts the page without rendering the events that will not be
 * sent. A nullable column without a default or check: no rewrite, no scan, only a brief lock
 * of the table (given up after 10 s rather than queueing every writer behind it);
 * events written before it have none and are measured when read.
 */
export class EventSizes1771000000000 implements MigrationInterface {
  name = 'EventSizes1771000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`SET LOCAL lock_timeout = '10s'`);
    await q.query(`ALTER TABLE events ADD COLUMN size integer`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events DROP COLUMN size`);
  }
}
