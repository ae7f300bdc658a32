import type { EntityManager } from 'typeorm';

export const CREDENTIALS_CHANNEL = 'credentials_changed';

/**
 * What an admin action changed; every instance drops what it cached about it. A revoked
 * token or session carries its expiry (epoch ms): past it, nobody needs to remember it.
 */
export type CredentialsEvent =
  | { kind: 'app'; appId: number }
  | { kind: 'token'; jti: string; expiresAt: number }
  | { kind: 'session'; id: string; expiresAt: number };

/**
 * NOTIFY inside the caller's transaction: PostgreSQL delivers it at commit, so no instance
 * hears of a change before it is visible, and a rolled-back change is never announced.
 */
export async function publishCredentialsEvent(
  manager: EntityManager,
  event: CredentialsEvent,
): Promise<void> {
  await manager.query('SELECT pg_notify($1, $2)', [CREDENTIALS_CHANNEL, JSON.stringify(event)]);
}
