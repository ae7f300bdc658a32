import { describe, expect, it } from 'vitest';
import { passwordProblem } from './password-policy.js';

describe('passwordProblem', () => {
  it.each([['correct horse battery staple'], ['8 chars!'], ['x'.repeat(128)], ['çok-güçlü-şifre']])(
    'accepts %j',
    (password) => {
      expect(passwordProblem(password)).toBeUndefined();
    },
  );

  it.each([
    ['short', 'must be at least 8 characters'],
    ['x'.repeat(129), 'must be at most 128 characters'],
    ['password', 'is too common; choose another'],
    ['PASSWORD', 'is too common; choose another'],
    ['12345678', 'is too common; choose another'],
    ['qwertyuiop', 'is too common; choose another'],
    ['iloveyou', 'is too common; choose another'],
  ])('refuses %j: %s', (password, reason) => {
    expect(passwordProblem(password)).toBe(reason);
  });

  it('counts characters, not UTF-16 units, and does not trim', () => {
    expect(passwordProblem('😀😀😀😀😀😀😀')).toBe('must be at least 8 characters');
    expect(passwordProblem('😀😀😀😀😀😀😀😀')).toBeUndefined();
    expect(passwordProblem('  pass  ')).toBeUndefined();
  });
});
