import { describe, expectTypeOf, it } from 'vitest';
import type { Scope } from '../auth/scopes.js';
import type { AppScope } from './app-scopes.js';

describe('AppScope', () => {
  it('is exactly the service’s scope list', () => {
    expectTypeOf<AppScope>().toEqualTypeOf<Scope>();
  });
});
