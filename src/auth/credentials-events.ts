export const CREDENTIALS_CHANNEL = 'credentials_changed';

/**
 * What an admin action changed; every instance drops what it cached about it. A revoked
 * token or session carries its expiry (epoch ms): past it, nobody needs to remember it.
 */
export type CredentialsEvent =
  | { kind: 'app'; appId: number }
  | { kind: 'token'; jti: string; expiresAt: number }
  | { kind: 'session'; id: string; expiresAt: number };
