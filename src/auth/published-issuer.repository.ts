import { Injectable } from '@nestjs/common';
import type { SharedSql } from '../database/sql/shared-sql.js';

const ISSUER = 'token_issuer';

/**
 * The issuer the HTTP server verifies tokens against, recorded when it starts: the CLI signs
 * private app tokens with it, so the server accepts them.
 */
@Injectable()
export class PublishedIssuerRepository {
  async publish(db: SharedSql, issuer: string): Promise<void> {
    await db.rows(
      `INSERT INTO service_settings (name, value) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [ISSUER, issuer],
    );
  }

  /** The issuer a server on this database published, if one ever started. */
  async find(db: SharedSql): Promise<string | undefined> {
    const row = await db.first<{ value: string }>(
      'SELECT value FROM service_settings WHERE name = $1',
      [ISSUER],
    );
    return row?.value;
  }
}
