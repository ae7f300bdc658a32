import { Injectable } from '@nestjs/common';
import argon2 from 'argon2';

/** How customer passwords are stored; a strategy so that the algorithm can change. */
export abstract class PasswordHasher {
  abstract hash(password: string): Promise<string>;
  abstract verify(hash: string, password: string): Promise<boolean>;
  /** True when the hash was made with weaker parameters than today's. */
  abstract needsRehash(hash: string): boolean;
}

/**
 * argon2id with at least OWASP's minimum (19 MiB, 2 iterations, 1 lane). The `argon2`
 * package hashes on libuv's thread pool, so the event loop keeps serving meanwhile.
 */
export const ARGON2_OPTIONS = {
  type: argon2.argon2id,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

@Injectable()
export class Argon2PasswordHasher extends PasswordHasher {
  hash(password: string): Promise<string> {
    return argon2.hash(password, ARGON2_OPTIONS);
  }

  async verify(hash: string, password: string): Promise<boolean> {
    try {
      return await argon2.verify(hash, password);
    } catch {
      // A malformed stored hash never authenticates.
      return false;
    }
  }

  needsRehash(hash: string): boolean {
    return argon2.needsRehash(hash, ARGON2_OPTIONS);
  }
}
