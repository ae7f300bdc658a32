/** Every scope an app can be approved for (docs/BEHAVIOUR.md#scopes). */
export const APP_SCOPES = [
  'orders:read',
  'orders:write',
  'marketplace:import',
  'products:read',
  'products:write',
  'customer:auth',
  'customer:manage',
  'customer:privacy',
  'customer:read',
  'order:read',
  'events:read',
  'webhooks:read',
  'webhooks:write',
] as const;

export type Scope = (typeof APP_SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (APP_SCOPES as readonly string[]).includes(value);
}

/** Space-separated list → distinct scopes in first-seen order. */
export function parseScopeList(value: string): string[] {
  return [...new Set(value.split(' ').filter((s) => s.length > 0))];
}
