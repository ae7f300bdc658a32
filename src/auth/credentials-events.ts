import type { EntityManager } from 'typeorm';

export const CREDENTIALS_CHANNEL = 'credentials_changed';

/** What an admin action changed; every instance drops what it cached about it. */
export type CredentialsEvent =
  { kind: 'app'; appId: number } | { kind: 'token'; jti: string } | { kind: 'session'; id: string };

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
