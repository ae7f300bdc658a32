import { Injectable } from '@nestjs/common';
import type { SharedSql } from '../database/sql/shared-sql.js';
import { CREDENTIALS_CHANNEL, type CredentialsEvent } from './credentials-events.js';

/** The NOTIFY every instance listens for, sent in the caller's unit (delivered at commit). */
@Injectable()
export class CredentialsNotifyRepository {
  async notify(db: SharedSql, event: CredentialsEvent): Promise<void> {
    await db.rows('SELECT pg_notify($1, $2)', [CREDENTIALS_CHANNEL, JSON.stringify(event)]);
  }
}
