import swaggerUi from 'swagger-ui-express';
import type { AnyRoute } from '../../http/define-route';
import { defineRoute } from '../../http/define-route';
import { buildOpenApiDocument } from '../../openapi/document';

/**
 * The document is built once, lazily, from the same route declarations that
 * validate requests, so it cannot drift from what the gateway serves.
 */
export function createDocsRoutes(getRoutes: () => AnyRoute[]) {
  let cached: ReturnType<typeof buildOpenApiDocument> | undefined;
  const document = () => (cached ??= buildOpenApiDocument(getRoutes()));

  const openapiJson = defineRoute({
    method: 'get',
    path: '/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    tags: ['docs'],
    auth: 'public',
    responses: { 200: { description: 'The document', contentType: 'application/json' } },
    handler: async () => ({ status: 200, body: document() }),
  });

  const docsPage = defineRoute({
    method: 'get',
    path: '/docs',
    summary: 'Interactive API reference',
    tags: ['docs'],
    auth: 'public',
    responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
    handler: async ({ req, res }) => {
      // The page loads ./swagger-ui-init.js relative to itself, so it must live at /docs/.
      if (!req.path.endsWith('/')) {
        res.redirect(301, '/docs/');
        return undefined;
      }
      res
        .type('html')
        .send(swaggerUi.generateHTML(undefined, {}, undefined, undefined, undefined, undefined, 'Weft API'));
      return undefined;
    },
  });

  // Script and styles of the reference page, served from node_modules so /docs works offline.
  const assets = swaggerUi.serveFiles(undefined, { swaggerUrl: '/openapi.json' });

  return { routes: [openapiJson, docsPage] as AnyRoute[], document, assets };
}
