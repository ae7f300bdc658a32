import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Customer refresh tokens (docs/BEHAVIOUR.md#refresh-tokens): one chain per login, with its
 * absolute and idle expiry and the moment it ended; its tokens, stored only as HMACs, each used
 * at most once (rotation); and per session the chain it came from, so a chain ends with its
 * sessions. New tables and a column without a default: nothing existing is rewritten.
 */
export class CustomerRefreshChains1768000000000 implements MigrationInterface {
  name = 'CustomerRefreshChains1768000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`SET LOCAL lock_timeout = '5s'`);
    await q.query(`
      CREATE TABLE customer_refresh_chains (
        tenant_id bigint NOT NULL,
        id uuid NOT NULL,
        customer_id bigint NOT NULL,
        app_id bigint NOT NULL,
        scopes text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        idle_expires_at timestamptz NOT NULL,
        ended_at timestamptz,
        PRIMARY KEY (tenant_id, id),
        FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id) ON DELETE CASCADE,
        FOREIGN KEY (tenant_id, app_id) REFERENCES apps (tenant_id, id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX customer_refresh_chains_customer_idx ON customer_refresh_chains (tenant_id, customer_id)`,
    );
    await q.query(`
      CREATE TABLE customer_refresh_tokens (
        tenant_id bigint NOT NULL,
        token_hash bytea NOT NULL,
        chain_id uuid NOT NULL,
        issued_at timestamptz NOT NULL DEFAULT now(),
        used_at timestamptz,
        PRIMARY KEY (tenant_id, token_hash),
        FOREIGN KEY (tenant_id, chain_id) REFERENCES customer_refresh_chains (tenant_id, id)
          ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX customer_refresh_tokens_chain_idx ON customer_refresh_tokens (tenant_id, chain_id)`,
    );
    await q.query(`ALTER TABLE customer_sessions ADD COLUMN chain_id uuid`);
    await q.query(
      `CREATE INDEX customer_sessions_chain_idx ON customer_sessions (tenant_id, chain_id)
       WHERE chain_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`SET LOCAL lock_timeout = '5s'`);
    await q.query(`DROP INDEX customer_sessions_chain_idx`);
    await q.query(`ALTER TABLE customer_sessions DROP COLUMN chain_id`);
    await q.query(`DROP TABLE customer_refresh_tokens`);
    await q.query(`DROP TABLE customer_refresh_chains`);
  }
}
