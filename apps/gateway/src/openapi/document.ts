import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { ErrorBody, RunDeltaEventSchema, RunNodeEventSchema, ValidationErrorBody, z } from '@weft/contracts';
import type { AnyRoute, ResponseSpec } from '../http/define-route';
import { MAX_JSON_DEPTH } from '../http/json-body';

/** `/agents/:agent_id` → `/agents/{agent_id}` */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const error = (description: string): ResponseSpec => ({ description, schema: ErrorBody });

// Responses every route of a kind can give, so that declarations list only their own.
function impliedResponses(route: AnyRoute): Record<number, ResponseSpec> {
  const out: Record<number, ResponseSpec> = {};
  const { params, query, headers, body, form } = route.request ?? {};
  if (params || query || headers || body || form) {
    out[422] = { description: 'Validation error', schema: ValidationErrorBody };
  }
  if (route.auth === 'api') {
    out[401] = error('Missing, unknown or revoked credentials');
    out[403] = error('X-Organization-Id names an organization the caller does not belong to');
    out[429] = error('Rate limit exceeded; see Retry-After');
  }
  if (route.auth === 'admin') out[401] = error('Missing or wrong admin token');
  if (route.request?.body || route.request?.form) out[413] = error('Request body too large');
  if (route.request?.body) out[415] = error('The body is not JSON: send Content-Type: application/json');
  if (route.auth !== 'public') {
    out[503] = error('PostgreSQL, Redis or the object store is unreachable for now; retry after Retry-After seconds');
  }
  return out;
}

const OrganizationHeader = z.object({
  'X-Organization-Id': z.string().optional().openapi({
    description: 'Selects the active organization for multi-organization callers.',
  }),
});

/** The request headers a route reads: its own, and for api routes X-Organization-Id. */
function requestHeaders(route: AnyRoute): z.ZodObject | undefined {
  const own = route.request?.headers;
  if (route.auth !== 'api') return own;
  return own ? OrganizationHeader.extend(own.shape) : OrganizationHeader;
}

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer' as const } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window', schema: { type: 'integer' as const } },
  'X-RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' as const } },
};

const JSON_BODY_DESCRIPTION = `JSON; objects and arrays nest at most ${MAX_JSON_DEPTH} levels deep (422 json_too_deep beyond).`;

export function buildOpenApiDocument(routes: AnyRoute[]) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
  });
  registry.registerComponent('securitySchemes', 'BearerJWT', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'HS256 JWT with claims sub, orgs (organization ids) and exp.',
  });
  registry.registerComponent('securitySchemes', 'AdminToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The operator token set in ADMIN_TOKEN.',
  });

  // The data of a run's `node` and `delta` events: an event stream's description names them, no body has their shape.
  registry.register('RunNodeEvent', RunNodeEventSchema);
  registry.register('RunDeltaEvent', RunDeltaEventSchema);

  for (const route of routes) {
    if (route.hidden) continue;
    const responses: RouteConfig['responses'] = {};
    const all = { ...impliedResponses(route), ...route.responses };
    for (const [status, spec] of Object.entries(all)) {
      const headers = route.auth === 'api' ? RATE_LIMIT_HEADERS : undefined;
      responses[status] = {
        description: spec.description,
        ...(headers ? { headers } : {}),
        ...(spec.schema
          ? { content: { [spec.contentType ?? 'application/json']: { schema: spec.schema } } }
          : spec.contentType
            ? { content: { [spec.contentType]: { schema: { type: 'string' } } } }
            : {}),
      };
    }
    const config: RouteConfig = {
      method: route.method,
      path: toOpenApiPath(route.path),
      summary: route.summary,
      tags: route.tags,
      responses,
      request: {
        ...(route.request?.params ? { params: route.request.params } : {}),
        ...(route.request?.query ? { query: route.request.query } : {}),
        ...(route.request?.body
          ? {
              body: {
                required: true,
                description: JSON_BODY_DESCRIPTION,
                content: { 'application/json': { schema: route.request.body } },
              },
            }
          : {}),
        ...(route.request?.form
          ? { body: { required: true, content: { 'multipart/form-data': { schema: route.request.form } } } }
          : {}),
        // zod-to-openapi takes headers as zod schemas, not as parameter objects.
        ...(requestHeaders(route) ? { headers: requestHeaders(route) } : {}),
      } as RouteConfig['request'],
    };
    if (route.auth === 'api') config.security = [{ ApiKey: [] }, { BearerJWT: [] }];
    if (route.auth === 'admin') config.security = [{ AdminToken: [] }];
    registry.registerPath(config);
  }

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Weft',
      version: '1.0.0',
      description:
        'Run AI agents and apps (flows of nodes) over HTTP. Interface version 1.0.0; ' +
        'paths carry no version segment. Errors other than 422 have the body {"detail": "..."}; ' +
        "a 422 entry's msg says what was expected and what came, and for malformed JSON the line and column. " +
        'A known path asked with a method it does not serve answers 405 with Allow.',
    },
  });
}
