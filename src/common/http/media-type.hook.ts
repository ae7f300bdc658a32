import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';

/** The OAuth token endpoint. */
export const TOKEN_PATH = '/builders/oauth/token';
/** RFC 7009 revocation and RFC 7662 introspection: the token endpoint's body formats. */
export const REVOCATION_PATH = '/builders/oauth/revoke';
export const INTROSPECTION_PATH = '/builders/oauth/introspect';
/** The OAuth endpoints: the only routes that take a form body, and small ones. */
export const FORM_BODY_ROUTES = new Set([TOKEN_PATH, REVOCATION_PATH, INTROSPECTION_PATH]);

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;

/**
 * Bodies must be JSON (the OAuth endpoints also take a form). Checked in `onRequest`, before
 * the body is read, so a wrong media type costs nothing. Requests without a body pass.
 */
export function mediaTypeCheck(request: FastifyRequest): void {
  const { headers } = request;
  const hasBody =
    headers['transfer-encoding'] !== undefined ||
    (headers['content-length'] !== undefined && headers['content-length'] !== '0');
  if (!hasBody) return;
  const type = headers['content-type'] ?? '';
  if (JSON_TYPE.test(type)) return;
  const path = request.url.split('?')[0];
  if (FORM_TYPE.test(type) && FORM_BODY_ROUTES.has(path)) return;
  throw new AppError(
    'unsupported_media_type',
    FORM_BODY_ROUTES.has(path)
      ? 'Request body must be application/json or application/x-www-form-urlencoded'
      : 'Request body must be application/json',
  );
}
