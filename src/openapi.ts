import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';

export function buildOpenApiDocument(app: INestApplication, publicUrl: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Storefront orders and customer accounts')
    .setDescription(
      [
        'Multi-tenant orders and customer accounts API. Private apps authenticate with the OAuth 2.0',
        'client_credentials grant at `POST /builders/oauth/token`; customers log in through an app.',
        '',
        'Every error is JSON `{error, error_description, details?}`; see CONTRACT section 1.',
        'Every response carries `X-Request-Id`. Request bodies must be JSON and at most 1 MiB.',
      ].join('\n'),
    )
    .setVersion('1')
    .addServer(publicUrl)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, when it is set' },
      'metrics',
    )
    .build();
  return SwaggerModule.createDocument(app, config);
}

/** `/openapi.json` and the interactive reference at `/docs`. */
export function serveOpenApi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
    customSiteTitle: 'Storefront API reference',
  });
}
