import type { INestApplication } from '@nestjs/common';
import { SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';

/**
 * `/openapi.json`, `/openapi.yaml` and the interactive reference at `/docs`. "Authorize"
 * offers the client credentials flow: the page fetches the token from the same origin.
 */
export function serveOpenApi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
    customSiteTitle: 'Storefront API reference',
    swaggerOptions: {
      displayRequestDuration: true,
      // The secret typed into "Authorize" stays in the page, never in localStorage.
      persistAuthorization: false,
    },
  });
}
