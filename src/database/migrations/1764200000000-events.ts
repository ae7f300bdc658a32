import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event log (docs/BEHAVIOUR.md#events): one row per change, written in the change's
 * transaction. `txid` is the writing transaction's id: the feed serves an event only once every
 * transaction below it has ended (pg_snapshot_xmin), and orders by (txid, seq), so a
 * transaction that committed late is never skipped and its events stay together.
 * `app_id` set: visible to that app only (its own admin actions). `event_purges` keeps, per
 * tenant, the last position removed by retention: a cursor before it has missed events (410).
 * `id` is 122 random bits (`evt_` + a v4 UUID): unique without an index to keep up on every
 * write; nothing looks events up by it.
 */
export class Events1764200000000 implements MigrationInterface {
  name = 'Events1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE events (
        tenant_id bigint NOT NULL REFERENCES tenants (id),
        seq bigint GENERATED ALWAYS AS IDENTITY,
        txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        id text NOT NULL DEFAULT ('evt_' || replace(gen_random_uuid()::text, '-', '')),
        type text NOT NULL CHECK (char_length(type) BETWEEN 1 AND 100),
        app_id bigint,
        order_id bigint,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, seq),
        FOREIGN KEY (tenant_id, app_id) REFERENCES apps (tenant_id, id)
      )`);
    await q.query(`CREATE INDEX events_feed_idx ON events (tenant_id, txid, seq)`);
    // The feed filtered by type: one ordered range per type, merged.
    await q.query(`CREATE INDEX events_type_idx ON events (tenant_id, type, txid, seq)`);
    await q.query(
      `CREATE INDEX events_order_idx ON events (tenant_id, order_id, seq) WHERE order_id IS NOT NULL`,
    );
    // The webhook dispatcher follows every tenant's events in the feed's order.
    await q.query(`CREATE INDEX events_dispatch_idx ON events (txid, seq)`);
    await q.query(`CREATE INDEX events_created_idx ON events (created_at)`);
    await q.query(`
      CREATE TABLE event_purges (
        tenant_id bigint PRIMARY KEY REFERENCES tenants (id),
        txid xid8 NOT NULL,
        seq bigint NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE event_purges`);
    await q.query(`DROP TABLE events`);
  }
}
