import request from 'supertest';
import { startTestGateway, type TestGateway } from '../testing/test-gateway';
import { INTERFACE_SCHEMAS, INTERFACE_STATUSES } from './interface-fields';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

interface OpenApiSchema {
  type?: string | string[];
  properties?: Record<string, unknown>;
  required?: string[];
  enum?: unknown[];
}

let gw: TestGateway;
let doc: {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, OpenApiSchema> };
};

beforeAll(async () => {
  gw = await startTestGateway();
  const res = await request(gw.app).get('/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => gw.close());

/**
 * Every (method, path) Express actually routes, in OpenAPI path syntax.
 * Routers mounted with app.use are not route layers and stay outside this
 * check on purpose: the /docs page's assets, and /admin/queues (Bull Board, an
 * operator's page with its own JSON API, not part of the Weft API; see
 * docs/operations.md). /metrics is an ordinary route and documented.
 */
function servedOperations(): string[] {
  const stack = (gw.app as unknown as { router: { stack: Layer[] } }).router.stack;
  const ops: string[] = [];
  for (const layer of stack) {
    if (!layer.route) continue;
    const path = layer.route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    for (const method of Object.keys(layer.route.methods)) ops.push(`${method} ${path}`);
  }
  return ops.sort();
}

test('is an OpenAPI 3.1 document', () => {
  expect(doc.openapi).toMatch(/^3\.1\./);
});

test('documents exactly the routes the gateway serves', () => {
  const documented = Object.entries(doc.paths)
    .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`))
    .sort();
  expect(documented).toEqual(servedOperations());
});

test('every route the document lists answers something other than an unmatched 404', async () => {
  for (const op of servedOperations()) {
    const [method, path] = op.split(' ') as [string, string];
    if (method !== 'get') continue;
    const concrete = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
    const res = await request(gw.app).get(concrete);
    expect(res.body).not.toEqual({ detail: 'Not Found' });
  }
});

test.each(Object.entries(INTERFACE_SCHEMAS))(
  'schema %s has the fields and required list clients know',
  (name, expected) => {
    const schema = doc.components.schemas[name];
    expect(schema).toBeDefined();
    const fields = Object.keys(schema!.properties ?? {});
    // Additive extensions are allowed; nothing of the interface may be missing.
    expect(fields).toEqual(expect.arrayContaining(expected.fields));
    expect([...(schema!.required ?? [])].sort()).toEqual(expect.arrayContaining([...expected.required].sort()));
    // A field the interface marks optional must not become required.
    for (const field of schema!.required ?? []) {
      if (expected.fields.includes(field)) expect(expected.required).toContain(field);
    }
  },
);

test('enumerations are those clients know', () => {
  const s = doc.components.schemas;
  expect(s.FlowVisibility?.enum).toEqual(['public', 'shared', 'private']);
  expect(s.FlowApplicationVisibility?.enum).toEqual(['private', 'workspace', 'shared', 'public']);
  expect(s.DataType?.enum).toEqual(['text', 'images', 'videos', 'files', 'audio', 'data']);
  expect(s.AppInputType?.enum).toEqual(['text', 'image', 'video', 'audio', 'brand', 'file']);
  expect(s.NodeType?.enum).toHaveLength(55);
  expect(s.ReviewDecision?.enum).toEqual(['approve', 'retry']);
});

test.each(Object.entries(INTERFACE_STATUSES))('%s documents statuses %j', (op, statuses) => {
  const [method, path] = op.split(' ') as [string, string];
  const operation = doc.paths[path]?.[method];
  expect(operation).toBeDefined();
  for (const status of statuses) expect(Object.keys(operation!.responses)).toContain(String(status));
});

test('the run lists document their filters', () => {
  const queryOf = (path: string) => {
    const op = doc.paths[path]?.['get'] as { parameters?: { in: string; name: string; schema: OpenApiSchema }[] };
    return new Map((op.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p.schema]));
  };
  const runs = queryOf('/runs');
  const appRuns = queryOf('/app-runs');
  for (const query of [runs, appRuns]) {
    expect([...query.keys()]).toEqual(expect.arrayContaining(['status', 'external_id', 'limit', 'cursor']));
    expect(query.get('awaiting_human_review')?.type).toBe('boolean');
  }
  expect(runs.get('agent_id')?.type).toBe('string');
  expect(appRuns.get('app_id')?.type).toBe('string');
});

test('asset_metadata is an object, never null', () => {
  const metadata = doc.components.schemas.Asset?.properties?.asset_metadata as OpenApiSchema & { anyOf?: unknown[] };
  expect(metadata.type).toBe('object');
  expect(metadata.anyOf).toBeUndefined();
});

test('list endpoints return cursor pages', () => {
  for (const name of ['CursorPage_AgentSummary', 'CursorPage_AppSummary', 'CursorPage_AssetSummary']) {
    const schema = doc.components.schemas[name];
    expect(Object.keys(schema?.properties ?? {}).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(schema?.required).toEqual(expect.arrayContaining(['data', 'has_more']));
  }
});

test('/docs serves the interactive reference offline', async () => {
  const redirect = await request(gw.app).get('/docs');
  expect(redirect.status).toBe(301);
  const page = await request(gw.app).get('/docs/');
  expect(page.status).toBe(200);
  expect(page.text).toContain('swagger-ui');
  const init = await request(gw.app).get('/docs/swagger-ui-init.js');
  expect(init.status).toBe(200);
  expect(init.text).toContain('/openapi.json');
});
