import type { RequestContext } from './request-context.js';
import type { Scope } from './scopes.js';

/** One way to be allowed in: a token of this kind holding this scope. */
export interface Grant {
  kind: RequestContext['kind'];
  scope: Scope;
}

export const appScope = (scope: Scope): Grant => ({ kind: 'app', scope });
export const customerScope = (scope: Scope): Grant => ({ kind: 'customer', scope });
