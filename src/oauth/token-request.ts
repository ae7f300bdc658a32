import { AppError } from '../common/errors/app-error.js';
import {
  type ClientCredentials,
  invalidRequest,
  readClientCredentials,
  readParameters,
} from './client-credentials.js';

export interface TokenRequest extends ClientCredentials {
  /**
   * Raw `scope` parameter; checked after client authentication (docs/BEHAVIOUR.md#token-endpoint).
   */
  scope: string | undefined;
}

const PARAMETERS = ['grant_type', 'client_id', 'client_secret', 'scope'] as const;

/**
 * Reads a token request (JSON or form body, optional Basic header) and applies the first two
 * checks of docs/BEHAVIOUR.md#token-endpoint: the grant type, then the presence of client
 * credentials.
 */
export function parseTokenRequest(body: unknown, authorization: string | undefined): TokenRequest {
  const params = readParameters(body, PARAMETERS);
  if (params.grant_type === undefined) throw invalidRequest('grant_type is required');
  if (params.grant_type !== 'client_credentials') {
    throw new AppError('unsupported_grant_type', 'Only the client_credentials grant is supported');
  }
  return { ...readClientCredentials(params, authorization), scope: params.scope };
}
