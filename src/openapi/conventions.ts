import type {
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ReferenceObject,
  ResponseObject,
} from '@nestjs/swagger';

/**
 * What holds for every operation, written once here instead of on each route: the headers
 * every response carries, the refusals any body or any request can meet, and `security: []`
 * on routes without a guard (they are public: a route is authenticated only through
 * `@Authenticated`, which documents its scheme and scope).
 */
export function applyConventions(document: OpenAPIObject): OpenAPIObject {
  const components = (document.components ??= {});
  components.headers = { ...components.headers, ...HEADERS };
  components.responses = { ...components.responses, ...SHARED_RESPONSES };
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = item[method];
      if (operation) applyToOperation(operation);
    }
  }
  return document;
}

const ref = (name: string): ReferenceObject => ({ $ref: `#/components/headers/${name}` });

const HEADERS: Record<string, HeaderObject> = {
  'X-Request-Id': {
    description:
      'Identifies the request in the service’s logs: a sane incoming `X-Request-Id` is echoed, else one is generated',
    required: true,
    schema: { type: 'string', example: '9ab83642-4ec7-4399-a34d-5056e4e44b1d' },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying',
    required: true,
    schema: { type: 'integer', minimum: 1, example: 12 },
  },
  'RateLimit-Policy': {
    description:
      'The limit that applies (IETF RateLimit header fields): policy name, quota `q` and window `w` in seconds',
    schema: { type: 'string', example: '"token";q=600;w=60' },
  },
  RateLimit: {
    description:
      'What is left of that limit: remaining `r` and seconds `t` until the window resets',
    schema: { type: 'string', example: '"token";r=599;t=60' },
  },
  'WWW-Authenticate': {
    description:
      'The authentication scheme to use (RFC 6750): `error="invalid_token"` when a bearer token was refused, `error="insufficient_scope", scope="…"` on 403',
    schema: { type: 'string', example: 'Bearer realm="api", error="invalid_token"' },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this is the stored response of an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
};

/** Sent with a 503 when the database is unreachable, not when the instance shuts down. */
const DATABASE_RETRY_AFTER: HeaderObject = {
  description: 'Seconds to wait, when the database is unreachable',
  schema: { type: 'integer', minimum: 1, example: 5 },
};

const errorContent = (example: { error: string; error_description: string }) => ({
  'application/json': {
    schema: { $ref: '#/components/schemas/ErrorResponseDto' },
    example,
  },
});

const SHARED_RESPONSES: Record<string, ResponseObject> = {
  BadRequest: {
    description:
      '`invalid_request`: an HTTP/1.1 request without `Host`, or a URL that is not valid percent-encoding',
    headers: { 'X-Request-Id': ref('X-Request-Id') },
    content: errorContent({
      error: 'invalid_request',
      error_description: 'An HTTP/1.1 request needs a Host header',
    }),
  },
  PayloadTooLarge: {
    description: '`payload_too_large`: the body is over 1 MiB (4 KiB on the token endpoint)',
    headers: { 'X-Request-Id': ref('X-Request-Id') },
    content: errorContent({
      error: 'payload_too_large',
      error_description: 'Request body is too large (1 MiB at most; 4 KiB on the token endpoint)',
    }),
  },
  UnsupportedMediaType: {
    description: '`unsupported_media_type`: the body is not `application/json`',
    headers: { 'X-Request-Id': ref('X-Request-Id') },
    content: errorContent({
      error: 'unsupported_media_type',
      error_description: 'Request body must be application/json',
    }),
  },
  InternalError: {
    description:
      '`internal_error`: something unexpected; the body carries `request_id`, the log the cause',
    headers: { 'X-Request-Id': ref('X-Request-Id') },
    content: errorContent({
      error: 'internal_error',
      error_description: 'An unexpected error occurred',
    }),
  },
  Unavailable: {
    description:
      '`unavailable`: the database is unreachable (with `Retry-After`) or this instance is shutting down',
    headers: {
      'X-Request-Id': ref('X-Request-Id'),
      'Retry-After': DATABASE_RETRY_AFTER,
    },
    content: errorContent({
      error: 'unavailable',
      error_description: 'The database is unavailable; retry later',
    }),
  },
};

/** A route's own 400 also covers the refusals before validation: malformed JSON or URL. */
function addInvalidRequest(response: ResponseObject): void {
  if (response.description.includes('`invalid_request`')) return;
  response.description += '; `invalid_request`: malformed JSON body or URL';
  const media = response.content?.['application/json'];
  if (media?.examples && !('invalid_request' in media.examples)) {
    media.examples.invalid_request = {
      summary: 'invalid_request',
      value: { error: 'invalid_request', error_description: 'Request body is not valid JSON' },
    };
  }
}

function applyToOperation(operation: OperationObject): void {
  operation.security ??= [];
  const responses = operation.responses;
  // Any request can be refused here: a malformed URL or body, or no Host header.
  const own400 = responses['400'];
  if (own400 && !('$ref' in own400)) addInvalidRequest(own400);
  else responses['400'] ??= { $ref: '#/components/responses/BadRequest' };
  if (operation.requestBody) {
    responses['413'] ??= { $ref: '#/components/responses/PayloadTooLarge' };
    responses['415'] ??= { $ref: '#/components/responses/UnsupportedMediaType' };
  }
  responses['500'] ??= { $ref: '#/components/responses/InternalError' };
  responses['503'] ??= { $ref: '#/components/responses/Unavailable' };
  const rateLimited = '429' in responses;
  const idempotent = (operation.parameters ?? []).some(
    (p) => 'name' in p && p.name === 'Idempotency-Key',
  );
  for (const [status, response] of Object.entries(responses)) {
    if (!response || '$ref' in response) continue;
    const headers: Record<string, HeaderObject | ReferenceObject> = {
      'X-Request-Id': ref('X-Request-Id'),
      ...response.headers,
    };
    if (rateLimited) {
      headers['RateLimit-Policy'] = ref('RateLimit-Policy');
      headers.RateLimit = ref('RateLimit');
    }
    if (status === '429') headers['Retry-After'] = ref('Retry-After');
    if (status === '401' || status === '403') {
      headers['WWW-Authenticate'] = ref('WWW-Authenticate');
    }
    if (status === '503') headers['Retry-After'] ??= DATABASE_RETRY_AFTER;
    if (idempotent && status.startsWith('2')) {
      headers['Idempotent-Replayed'] = ref('Idempotent-Replayed');
    }
    response.headers = headers;
  }
}
