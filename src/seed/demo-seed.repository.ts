import { Injectable } from '@nestjs/common';
import type { SharedSql } from '../database/sql/shared-sql.js';

/** Taken while deciding whether this is the first start, so two instances seed once. */
const FIRST_START_LOCK = 7_240_002;
/** Set by the first demo seed (a backfill migration set it for databases seeded before). */
const DEMO_SEEDED = 'demo_seeded';

/** Whether demo data was ever seeded into this database: a marker no tenant owns. */
@Injectable()
export class DemoSeedRepository {
  /** Held until the unit of work ends. */
  async lockFirstStart(db: SharedSql): Promise<void> {
    await db.rows('SELECT pg_advisory_xact_lock($1)', [FIRST_START_LOCK]);
  }

  async isSeeded(db: SharedSql): Promise<boolean> {
    const row = await db.first('SELECT 1 FROM service_settings WHERE name = $1', [DEMO_SEEDED]);
    return row !== undefined;
  }

  /** Records the first demo tenant; later seeds leave the marker as it is. */
  async markSeeded(db: SharedSql, tenantId: number): Promise<void> {
    await db.rows(
      `INSERT INTO service_settings (name, value) VALUES ($1, $2)
       ON CONFLICT (name) DO NOTHING`,
      [DEMO_SEEDED, String(tenantId)],
    );
  }
}
