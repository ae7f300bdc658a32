import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox } from './secret-box.js';

describe('SecretBox', () => {
  it('round-trips, never stores the plain text, and refuses another key or a changed byte', () => {
    const box = new SecretBox(randomBytes(32));
    const sealed = box.seal('whsec_plain');
    expect(box.open(sealed)).toBe('whsec_plain');
    expect(sealed.includes(Buffer.from('whsec_plain'))).toBe(false);
    expect(box.seal('whsec_plain').equals(sealed)).toBe(false);
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow(
      'unable to authenticate data',
    );
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(() => box.open(tampered)).toThrow('unable to authenticate data');
  });
});
