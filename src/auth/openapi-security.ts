import { applyDecorators } from '@nestjs/common';
import { ApiExtension, ApiSecurity, type SecuritySchemeObject } from '@nestjs/swagger';
import type { Grant } from './grants.js';
import { APP_SCOPES, type Scope } from './scopes.js';
import { TOKEN_PATH } from '../common/http/media-type.hook.js';

/** Security scheme names of the OpenAPI document. */
export const SCHEMES = {
  app: 'oauth2',
  customer: 'customer_session',
  tokenClient: 'client_secret_basic',
  metrics: 'metrics',
} as const;

/** What each scope grants (docs/BEHAVIOUR.md#scopes), shown in the "Authorize" dialog. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'orders:read': 'List and read every order of the tenant, and an order’s timeline',
  'orders:write':
    'Create orders, change them (status, PATCH) and record cancels, fulfillments and refunds',
  'marketplace:import': 'Queue marketplace orders for import and read an import’s status',
  'products:read': 'List and read the catalog',
  'products:write': 'Create and change products, and receive, correct or count their stock',
  'customer:auth': 'Register customers and log them in (customer sessions)',
  'customer:manage': 'Create email-verification and password-reset tickets',
  'customer:privacy': 'Export what the store holds about a person (data rights)',
  'customer:read': 'Passed on to customer sessions: the customer’s profile, password and logout',
  'order:read': 'Passed on to customer sessions: the customer’s own orders',
  'events:read': 'Read the change feed',
  'webhooks:read': 'List and read webhook endpoints and their deliveries',
  'webhooks:write': 'Create, change and delete webhook endpoints, rotate secrets, redeliver',
};

export const SECURITY_SCHEMES: Record<string, SecuritySchemeObject> = {
  [SCHEMES.app]: {
    type: 'oauth2',
    description:
      'App tokens: OAuth 2.0 client credentials. Ask for the scopes an operation lists; only ' +
      'scopes approved for the app are granted.',
    flows: {
      clientCredentials: {
        // Relative to the server, like every URL of the document.
        tokenUrl: TOKEN_PATH,
        scopes: Object.fromEntries(APP_SCOPES.map((scope) => [scope, SCOPE_DESCRIPTIONS[scope]])),
      },
    },
  },
  [SCHEMES.customer]: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'Customer sessions: the `token` of `POST /v1/customers/login`. It carries the scopes ' +
      '`customer:read` and `order:read` that the logging-in app token held, and no other.',
  },
  [SCHEMES.tokenClient]: {
    type: 'http',
    scheme: 'basic',
    description: 'The token endpoint’s client authentication: `client_id:client_secret`.',
  },
  [SCHEMES.metrics]: {
    type: 'http',
    scheme: 'bearer',
    description: 'METRICS_TOKEN, when it is set',
  },
};

/**
 * The security requirements of a route admitting these grants: alternatives, one per grant
 * kind. An app grant names its scope; a customer session is a plain bearer scheme, whose
 * scope OpenAPI 3.0 cannot name (the 403 response says it).
 */
export function ApiGrants(grants: Grant[]): MethodDecorator & ClassDecorator {
  const appScopes = grants.filter((g) => g.kind === 'app').map((g) => g.scope);
  const customer = grants.some((g) => g.kind === 'customer');
  return applyDecorators(
    // One requirement per scope: any one of them admits (scopes in one requirement are ANDed).
    ...appScopes.map((scope) => ApiSecurity(SCHEMES.app, [scope])),
    ...(customer ? [ApiSecurity(SCHEMES.customer)] : []),
    // Every admitted (token kind, scope), customer sessions included, for tools and the README.
    ApiExtension(
      'x-grants',
      grants.map((g) => ({ token: g.kind === 'app' ? 'app' : SCHEMES.customer, scope: g.scope })),
    ),
  );
}
