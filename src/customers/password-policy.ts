import { dictionary } from '@zxcvbn-ts/language-common';

/** zxcvbn-ts's list of the most common passwords (about 49,000), lower-cased. */
const COMMON = new Set(dictionary['passwords-common'].map((p) => p.toLowerCase()));

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

/**
 * NIST SP 800-63B style: length 8–128 counted in characters (code points), no composition
 * rules, common passwords refused (any case). The password is checked exactly as received:
 * no trimming, no normalisation, no truncation. Returns the reason, or undefined.
 */
export function passwordProblem(password: string): string | undefined {
  // Code points, so an emoji counts as one character.
  const length = Array.from(password).length;
  if (length < PASSWORD_MIN) return `must be at least ${PASSWORD_MIN} characters`;
  if (length > PASSWORD_MAX) return `must be at most ${PASSWORD_MAX} characters`;
  if (COMMON.has(password.toLowerCase())) return 'is too common; choose another';
  return undefined;
}
