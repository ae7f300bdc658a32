/** What every verified token says about its caller. */
interface ContextBase {
  tenantId: number;
  appId: number;
  clientId: string;
  scopes: ReadonlySet<string>;
  /** `jti` of an app token, session id of a customer token. */
  tokenId: string;
  /** The app's credentials version the token was issued under (sessions inherit it). */
  credentialsVersion: number;
}

/** An app token: acts for the whole tenant. */
export interface AppContext extends ContextBase {
  kind: 'app';
}

/** A customer session: acts for one customer of the tenant, never more. */
export interface CustomerContext extends ContextBase {
  kind: 'customer';
  customerId: number;
}

/**
 * Who is calling, from a verified token; passed explicitly as the first argument of services.
 * A union, so code that needs the customer must first establish that there is one, and a
 * query built for a customer cannot forget them (see orders' `OrderScope`).
 */
export type RequestContext = AppContext | CustomerContext;

/** The JWT `typ` header of each kind, so one kind can never pass for the other (RFC 9068). */
export const TOKEN_TYPES = { app: 'at+jwt', customer: 'customer-session+jwt' } as const;
