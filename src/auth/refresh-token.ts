import { createHmac, randomBytes } from 'node:crypto';

/** A refresh token: `rt_` and 32 random bytes (256 bits), base64url. */
export function generateRefreshToken(): string {
  return `rt_${randomBytes(32).toString('base64url')}`;
}

/** What is stored: an HMAC under the server pepper, never the token. */
export function hashRefreshToken(token: string, pepper: Buffer): Buffer {
  return createHmac('sha256', pepper).update(`refresh:${token}`, 'utf8').digest();
}

/** Anything else is not a refresh token of ours: refused before any lookup. */
export const REFRESH_TOKEN_FORMAT = /^rt_[A-Za-z0-9_-]{43}$/;
