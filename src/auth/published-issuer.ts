import type { EntityManager } from 'typeorm';

const ISSUER = 'token_issuer';

/** The HTTP server records the issuer it verifies tokens against when it starts. */
export async function publishIssuer(manager: EntityManager, issuer: string): Promise<void> {
  await manager.query(
    `INSERT INTO service_settings (name, value) VALUES ($1, $2)
     ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [ISSUER, issuer],
  );
}

/** The issuer a server on this database published, if one ever started. */
export async function publishedIssuer(manager: EntityManager): Promise<string | undefined> {
  const rows: Array<{ value: string }> = await manager.query(
    'SELECT value FROM service_settings WHERE name = $1',
    [ISSUER],
  );
  return rows[0]?.value;
}
