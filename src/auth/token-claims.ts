/** The payload of our access tokens. */
export interface TokenClaims {
  iss: string;
  aud: string;
  /** client_id for app tokens, customer id for customer sessions. */
  sub: string;
  client_id: string;
  /** Tenant id. */
  tid: number;
  /** Internal app id (saves a lookup by client_id on every request). */
  app: number;
  scope: string;
  jti: string;
  iat: number;
  exp: number;
  /** App credentials version at issue; a rotation or scope change bumps it. */
  cv: number;
  /** Customer id (customer sessions only). */
  cid?: number;
}
