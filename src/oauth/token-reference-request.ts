import {
  type ClientCredentials,
  readClientCredentials,
  readParameters,
} from './client-credentials.js';

/** A revocation (RFC 7009) or introspection (RFC 7662) request. */
export interface TokenReferenceRequest {
  credentials: ClientCredentials;
  /** Required, checked after client authentication (RFC 7009 2.1 authenticates first). */
  token: string | undefined;
}

const PARAMETERS = ['token', 'token_type_hint', 'client_id', 'client_secret'] as const;

/**
 * Reads the body (JSON or form) and client credentials (body or Basic header) as the token
 * endpoint does. `token` is required (checked after client authentication); `token_type_hint` is read but never needed: the token's
 * form tells a refresh token from an access token (RFC 7009 2.1 lets the server search every
 * type it supports).
 */
export function parseTokenReference(
  body: unknown,
  authorization: string | undefined,
): TokenReferenceRequest {
  const params = readParameters(body, PARAMETERS);
  return { credentials: readClientCredentials(params, authorization), token: params.token };
}
