import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Client secrets are 256 random bits, so a keyed fast hash is the right tool (argon2 is for
 * low-entropy passwords): HMAC-SHA-256 under a server-side pepper keeps the token endpoint
 * fast, and a stolen table is useless without the pepper.
 */
export function generateClientSecret(): string {
  return `cs_${randomBytes(32).toString('base64url')}`;
}

export function generateClientId(): string {
  return `app_${randomBytes(12).toString('base64url')}`;
}

export function hashClientSecret(secret: string, pepper: Buffer): Buffer {
  return createHmac('sha256', pepper).update(secret, 'utf8').digest();
}

/** Constant-time comparison of a presented secret with the stored hash. */
export function verifyClientSecret(secret: string, storedHash: Buffer, pepper: Buffer): boolean {
  const presented = hashClientSecret(secret, pepper);
  return storedHash.length === presented.length && timingSafeEqual(presented, storedHash);
}
