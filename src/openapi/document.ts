import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { applyConventions } from './conventions.js';
import { SECURITY_SCHEMES } from '../auth/openapi-security.js';
import { ANY_EVENT_SCHEMA, EVENT_SCHEMAS } from './event-payloads.js';
import { TAGS } from './tags.js';

const DESCRIPTION = [
  'Multi-tenant orders and customer accounts API.',
  '',
  '- **Apps** (ERPs, marketplace connectors, storefront back ends) get a token with the OAuth 2.0',
  '  client credentials grant at `POST /builders/oauth/token`, limited to the scopes approved',
  '  for the app. Each operation lists the scope it needs.',
  '- **Customers** log in through an app holding `customer:auth`; their session token reads the',
  '  profile and only the customer’s own orders. It carries `customer:read` and `order:read` only',
  '  if the logging-in app token held them: a token with `customer:auth` alone makes sessions',
  '  that every customer route refuses with 403 `scope_denied`.',
  '',
  'Every error is JSON `{error, error_description, details?}` with one of the codes listed on each',
  'response. Every response carries `X-Request-Id` (a sane incoming one is echoed). Request',
  'bodies are JSON (the token endpoint also takes form-urlencoded), 1 MiB at most. Writes that',
  'take an `Idempotency-Key` replay their first response for 24 h.',
  '',
  'License: proprietary; use of this API is governed by your agreement with its operator.',
].join('\n');

/** Relative, like the server: the reference served next to the document. */
const CONTACT_URL = '/docs';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Storefront orders and customer accounts')
    .setDescription(DESCRIPTION)
    .setVersion('0.1.0') // package.json's version and CHANGELOG.md's latest release
    // Relative: "Try it" in /docs and generated clients use the origin that served the document.
    .addServer('/', 'This server');
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) {
    builder.addSecurity(name, scheme);
  }
  for (const tag of TAGS) builder.addTag(tag.name, tag.description);
  const config = builder.build();
  config.info.contact = { name: 'Storefront API maintainers', url: CONTACT_URL };
  config.info.license = { name: 'Proprietary', url: CONTACT_URL };
  const document = SwaggerModule.createDocument(app, config, {
    extraModels: Object.values(EVENT_SCHEMAS),
  });
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, Event: ANY_EVENT_SCHEMA },
  };
  return applyConventions(document);
}
