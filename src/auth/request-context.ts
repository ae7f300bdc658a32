/** Who is calling, from a verified token. Passed explicitly as the first argument of services. */
export interface RequestContext {
  kind: 'app' | 'customer';
  tenantId: number;
  appId: number;
  clientId: string;
  scopes: ReadonlySet<string>;
  /** `jti` of an app token, session id of a customer token. */
  tokenId: string;
  customerId?: number;
  /** The app's credentials version the token was issued under (sessions inherit it). */
  credentialsVersion: number;
}

/** The JWT `typ` header of each kind, so one kind can never pass for the other (RFC 9068). */
export const TOKEN_TYPES = { app: 'at+jwt', customer: 'customer-session+jwt' } as const;
