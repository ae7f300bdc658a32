import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** A new signing secret as Standard Webhooks writes it: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key of a `whsec_` secret: its decoded bytes. */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/**
 * `webhook-signature` (standardwebhooks.com): `v1,` + base64 HMAC-SHA256 of
 * `id.timestamp.body`, one per secret, space-separated (during a rotation both the new and
 * the old secret sign, so receivers holding either accept the delivery).
 */
export function signatureHeader(
  secrets: readonly string[],
  messageId: string,
  timestamp: number,
  body: string,
): string {
  return secrets
    .map(
      (secret) =>
        'v1,' +
        createHmac('sha256', keyOf(secret))
          .update(`${messageId}.${timestamp}.${body}`)
          .digest('base64'),
    )
    .join(' ');
}
