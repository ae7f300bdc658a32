import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints and deliveries (docs/BEHAVIOUR.md#webhooks). Signing secrets must be readable
 * to sign, so they are stored encrypted (AES-256-GCM under a key derived from the server's pepper),
 * never in plain text; a rotated-out secret keeps signing until `previous_secret_expires_at`.
 * A delivery is one (endpoint, event) pair; it goes with its event at retention.
 * `webhook_dispatch` is the dispatcher's place in the event log (one row for the cluster).
 */
export class Webhooks1764200000002 implements MigrationInterface {
  name = 'Webhooks1764200000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        tenant_id bigint NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        app_id bigint NOT NULL,
        url text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
        description text CHECK (char_length(description) <= 500),
        event_types text[] NOT NULL CHECK (cardinality(event_types) >= 1),
        active boolean NOT NULL DEFAULT true,
        secret_ciphertext bytea NOT NULL,
        previous_secret_ciphertext bytea,
        previous_secret_expires_at timestamptz,
        failing_since timestamptz,
        last_failure_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, id),
        FOREIGN KEY (tenant_id, app_id) REFERENCES apps (tenant_id, id)
      )`);
    await q.query(
      `CREATE INDEX webhook_endpoints_app_idx ON webhook_endpoints (tenant_id, app_id, id)`,
    );
    await q.query(`
      CREATE TABLE webhook_deliveries (
        tenant_id bigint NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        endpoint_id bigint NOT NULL,
        event_seq bigint NOT NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        last_status_code integer,
        last_error text CHECK (char_length(last_error) <= 500),
        last_attempt_at timestamptz,
        next_attempt_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, id),
        CONSTRAINT webhook_deliveries_endpoint_event_key UNIQUE (tenant_id, endpoint_id, event_seq),
        FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id)
          ON DELETE CASCADE,
        FOREIGN KEY (tenant_id, event_seq) REFERENCES events (tenant_id, seq) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (tenant_id, endpoint_id, id DESC)`,
    );
    // Maintenance looks for pending deliveries whose job was lost.
    await q.query(
      `CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (next_attempt_at)
       WHERE state = 'pending'`,
    );
    // Retention deletes events; their deliveries are found by this index.
    await q.query(
      `CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (tenant_id, event_seq)`,
    );
    await q.query(`
      CREATE TABLE webhook_dispatch (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        txid xid8 NOT NULL,
        seq bigint NOT NULL
      )`);
    await q.query(`INSERT INTO webhook_dispatch (txid, seq) VALUES ('0', 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_dispatch`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhook_endpoints`);
  }
}
