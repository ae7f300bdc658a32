import { AppError } from '../common/errors/app-error.js';

export interface TokenRequest {
  clientId: string;
  clientSecret: string;
  /**
   * Raw `scope` parameter; checked after client authentication (docs/BEHAVIOUR.md#token-endpoint).
   */
  scope: string | undefined;
  /** client_secret_basic was used: failures then carry `WWW-Authenticate: Basic`. */
  usedBasic: boolean;
}

const PARAMETERS = ['grant_type', 'client_id', 'client_secret', 'scope'] as const;

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

/**
 * Reads a token request (JSON or form body, optional Basic header) and applies the first two
 * checks of docs/BEHAVIOUR.md#token-endpoint: the grant type, then the presence of client
 * credentials.
 */
export function parseTokenRequest(body: unknown, authorization: string | undefined): TokenRequest {
  const params = readParameters(body);
  if (params.grant_type === undefined) throw invalidRequest('grant_type is required');
  if (params.grant_type !== 'client_credentials') {
    throw new AppError('unsupported_grant_type', 'Only the client_credentials grant is supported');
  }
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
    return wellFormed({ ...credentials, scope: params.scope, usedBasic: true });
  }
  if (!params.client_id) throw invalidRequest('client_id is required');
  if (!params.client_secret) throw invalidRequest('client_secret is required');
  return wellFormed({
    clientId: params.client_id,
    clientSecret: params.client_secret,
    scope: params.scope,
    usedBasic: false,
  });
}

/** A client_id not in the documented format is refused before any lookup or count. */
function wellFormed(request: TokenRequest): TokenRequest {
  if (!CLIENT_ID_FORMAT.test(request.clientId) || request.clientSecret.length > MAX_SECRET_LENGTH) {
    throw invalidClient(request.usedBasic);
  }
  return request;
}

function readParameters(body: unknown): Partial<Record<(typeof PARAMETERS)[number], string>> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw invalidRequest('The body must be an object');
  const params: Partial<Record<(typeof PARAMETERS)[number], string>> = {};
  for (const name of PARAMETERS) {
    const value: unknown = (body as Record<string, unknown>)[name];
    if (value === undefined) continue;
    // A form repeats a parameter as an array; RFC 6749 3.2 forbids repeating them.
    if (typeof value !== 'string') throw invalidRequest(`${name} must be a single string`);
    params[name] = value;
  }
  return params;
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

function invalidRequest(description: string): AppError {
  return new AppError('invalid_request', description);
}
