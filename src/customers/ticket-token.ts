import { createHmac, randomBytes } from 'node:crypto';

/** A ticket token: `tkt_` and 32 random bytes (256 bits), base64url. */
export function generateTicketToken(): string {
  return `tkt_${randomBytes(32).toString('base64url')}`;
}

/**
 * What is stored: an HMAC under the server pepper, never the token (docs/BEHAVIOUR.md#email-trust).
 */
export function hashTicketToken(token: string, pepper: Buffer): Buffer {
  return createHmac('sha256', pepper).update(`ticket:${token}`, 'utf8').digest();
}

/** Anything else is not a token of ours: refused before any lookup. */
export const TICKET_TOKEN_FORMAT = /^tkt_[A-Za-z0-9_-]{43}$/;
