import { createHmac } from 'node:crypto';

/**
 * What an erasure keeps of the email it was asked for (docs/BEHAVIOUR.md#customer-data-rights):
 * HMAC-SHA-256 under the server pepper, of the tenant and the email in lower case. The same
 * email in any case always gives the same hash, so the audit log can answer "was this person
 * erased?" for an email given again; without the pepper no dictionary of emails reverses it.
 */
export function emailHash(pepper: Buffer, tenantId: number, email: string): string {
  return createHmac('sha256', pepper)
    .update(`erasure:${tenantId}:${email.toLowerCase()}`, 'utf8')
    .digest('hex');
}
