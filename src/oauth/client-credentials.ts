import { AppError } from '../common/errors/app-error.js';

/** A client's credentials as the request carried them (docs/BEHAVIOUR.md#token-endpoint). */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** client_secret_basic was used: failures then carry `WWW-Authenticate: Basic`. */
  usedBasic: boolean;
}

/**
 * The one client_id format (docs/BEHAVIOUR.md#token-endpoint): `app_` and up to 60 base64url
 * characters.
 */
export const CLIENT_ID_FORMAT = /^app_[A-Za-z0-9_-]{1,60}$/;
/** Secrets are `cs_` + 43 characters; anything far longer is not one of ours. */
const MAX_SECRET_LENGTH = 256;

export function invalidClient(usedBasic: boolean): AppError {
  return new AppError('invalid_client', 'Client authentication failed', {
    headers: usedBasic ? { 'www-authenticate': 'Basic realm="oauth"' } : {},
  });
}

export function invalidRequest(description: string): AppError {
  return new AppError('invalid_request', description);
}

/**
 * The named parameters of a JSON or form body, each a single string (RFC 6749 3.2 forbids
 * repeating them; a form repeats a parameter as an array). Other parameters are ignored.
 */
export function readParameters<N extends string>(
  body: unknown,
  names: readonly N[],
): Partial<Record<N, string>> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw invalidRequest('The body must be an object');
  const params: Partial<Record<N, string>> = {};
  for (const name of names) {
    const value: unknown = (body as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw invalidRequest(`${name} must be a single string`);
    params[name] = value;
  }
  return params;
}

/**
 * Client credentials from the body (client_secret_post) or a Basic header (client_secret_basic),
 * never both; a client_id not in the documented format is refused before any lookup or count.
 */
export function readClientCredentials(
  params: { client_id?: string; client_secret?: string },
  authorization: string | undefined,
): ClientCredentials {
  const basic = authorization !== undefined && /^basic\s/i.test(authorization);
  if (basic) {
    if (params.client_secret !== undefined) {
      throw invalidRequest(
        'Client credentials were sent both in the body and in the Authorization header',
      );
    }
    const credentials = parseBasicCredentials(authorization);
    if (params.client_id !== undefined && params.client_id !== credentials.clientId) {
      throw invalidRequest(
        'client_id in the body differs from the one in the Authorization header',
      );
    }
    return wellFormed({ ...credentials, usedBasic: true });
  }
  if (!params.client_id) throw invalidRequest('client_id is required');
  if (!params.client_secret) throw invalidRequest('client_secret is required');
  return wellFormed({
    clientId: params.client_id,
    clientSecret: params.client_secret,
    usedBasic: false,
  });
}

function wellFormed(credentials: ClientCredentials): ClientCredentials {
  if (
    !CLIENT_ID_FORMAT.test(credentials.clientId) ||
    credentials.clientSecret.length > MAX_SECRET_LENGTH
  ) {
    throw invalidClient(credentials.usedBasic);
  }
  return credentials;
}

/** RFC 6749 2.3.1: base64 of form-encoded `client_id:client_secret`. */
function parseBasicCredentials(authorization: string): { clientId: string; clientSecret: string } {
  const encoded = authorization.replace(/^basic\s+/i, '').trim();
  const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded)
    ? Buffer.from(encoded, 'base64').toString('utf8')
    : '';
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidClient(true);
  try {
    const clientId = formDecode(decoded.slice(0, colon));
    const clientSecret = formDecode(decoded.slice(colon + 1));
    if (!clientId || !clientSecret) throw invalidClient(true);
    return { clientId, clientSecret };
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw invalidClient(true);
  }
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}
