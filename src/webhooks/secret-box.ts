import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Signing secrets must be read back to sign, so they are encrypted, not hashed: AES-256-GCM
 * under a key derived from the server's pepper. Stored as iv (12) ‖ tag (16) ‖ ciphertext;
 * a row copied elsewhere or a database dump reveals nothing without the server's key.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(pepper: Buffer) {
    this.key = Buffer.from(
      hkdfSync('sha256', pepper, Buffer.alloc(0), 'webhook-signing-secrets', 32),
    );
  }

  seal(plain: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const encrypted = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), encrypted]);
  }

  open(sealed: Buffer): string {
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, 12));
    decipher.setAuthTag(sealed.subarray(12, 28));
    return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
  }
}
