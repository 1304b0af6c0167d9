import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { postAgent } from '../testing/catalog-fixtures';
import { startTestGateway, type TestGateway } from '../testing/test-gateway';

// What a client is told when its request is wrong: what was expected and
// where, in words it can act on.

let gw: TestGateway;
let apiKey: string;
let agentId: string;

beforeAll(async () => {
  gw = await startTestGateway();
  ({ apiKey } = await gw.createOrg());
  agentId = (await postAgent(gw.app, apiKey)).id;
});
afterAll(() => gw.close());

/** A POST with exactly these headers (supertest would add a Content-Type of its own). */
function rawPost(path: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const { port } = gw.server.address() as AddressInfo;
    const req = http.request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { 'X-Api-Key': apiKey, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const postJson = (path: string, text: string) =>
  request(gw.server).post(path).set('X-Api-Key', apiKey).set('Content-Type', 'application/json').send(text);

describe('bodies that are not JSON', () => {
  const body = JSON.stringify({ name: 'A', description: 'B' });

  it('a JSON body without Content-Type: 415 saying to send Content-Type: application/json', async () => {
    const res = await rawPost('/agents', body, { 'Content-Length': String(Buffer.byteLength(body)) });
    expect(res).toEqual({
      status: 415,
      body: { detail: 'The body must be JSON: send Content-Type: application/json (none was sent)' },
    });
  });

  it("curl -d's form type: 415 naming the type that was sent", async () => {
    const res = await rawPost('/agents', body, {
      'Content-Type': 'application/x-www-form-urlencoded',
      'Content-Length': String(Buffer.byteLength(body)),
    });
    expect(res).toEqual({
      status: 415,
      body: {
        detail: 'The body must be JSON: send Content-Type: application/json (got application/x-www-form-urlencoded)',
      },
    });
  });

  it('no body at all: 422 at body, saying one is required', async () => {
    const res = await request(gw.server).post('/agents').set('X-Api-Key', apiKey);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      {
        loc: ['body'],
        msg: 'A JSON body is required: send one with Content-Type: application/json',
        type: 'missing',
      },
    ]);
  });
});

describe('malformed JSON: the line and column of the error', () => {
  it.each([
    ['a missing value', '{"name": "A",\n  "description": }', 2, 18, "Unexpected token '}'"],
    ['a missing comma', '{"name": "A"\n "description": "B"}', 2, 2, "Expected ',' or '}' after property value"],
    ['a misspelt literal', '{"name": "A", "description": nul}', 1, 30, "Unexpected token 'nul'"],
    ['a bare word', '{"name": "A",\n "description": yes}', 2, 17, "Unexpected token 'yes'"],
    ['an unterminated string', '{"name": "A", "desc', 1, 20, 'Unterminated string'],
    ['a cut-off body', '{"name": "A", "description": ', 1, 30, 'Unexpected end of JSON input'],
  ])('%s', async (_what, text, line, column, what) => {
    const res = await postJson('/agents', text);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      {
        loc: ['body'],
        msg: `Invalid JSON at line ${line}, column ${column}: ${what}`,
        type: 'json_invalid',
        ctx: { line, column, position: expect.any(Number) },
      },
    ]);
  });
});

describe('invalid values: what was expected, what came', () => {
  it('a number where a string belongs', async () => {
    const res = await postJson('/agents', JSON.stringify({ name: 5, description: 'B' }));
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'name'], msg: 'expected a string, got a number', type: 'string_type', input: 5 },
    ]);
  });

  it('a value matching none of the accepted types (a run input)', async () => {
    const res = await postJson('/runs', JSON.stringify({ agent_id: agentId, inputs: [{ id: 'text', value: 5 }] }));
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      {
        loc: ['body', 'inputs', 0, 'value'],
        msg: 'expected a string, an array or an object, got a number',
        type: 'value_error',
        input: 5,
      },
    ]);
  });

  it('a missing field, a value outside an enum, a malformed uuid', async () => {
    const missing = await postJson('/agents', JSON.stringify({ description: 'B' }));
    expect(missing.body.detail).toEqual([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }]);

    const visibility = await postJson('/agents', JSON.stringify({ name: 'A', description: 'B', visibility: 'secret' }));
    expect(visibility.body.detail).toEqual([
      {
        loc: ['body', 'visibility'],
        msg: 'expected one of "public", "shared", "private", got "secret"',
        type: 'enum',
        input: 'secret',
        ctx: { expected: ['public', 'shared', 'private'] },
      },
    ]);

    const uuid = await request(gw.server).get('/runs/not-a-run').set('X-Api-Key', apiKey);
    expect(uuid.status).toBe(422);
    expect(uuid.body.detail[0]).toMatchObject({
      loc: ['path', 'run_id'],
      msg: expect.stringMatching(/^expected a UUID .*, got "not-a-run"$/),
    });
  });
});

describe('a known path with a method it does not serve', () => {
  it.each([
    ['delete', '/agents', 'GET, HEAD, POST'],
    ['put', '/runs/0190f2a4-5b6c-7d8e-9f00-112233445566', 'DELETE, GET, HEAD'],
    ['post', '/healthz', 'GET, HEAD'],
    ['patch', '/runs/0190f2a4-5b6c-7d8e-9f00-112233445566/reviews/0190f2a4-5b6c-7d8e-9f00-112233445566', 'POST'],
  ] as const)('%s %s: 405 with Allow: %s', async (method, path, allow) => {
    const res = await request(gw.server)[method](path).set('X-Api-Key', apiKey);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.body).toEqual({ detail: `Method ${method.toUpperCase()} not allowed on this path; allowed: ${allow}` });
    // Counted like every other request (docs/api.md#rate-limits).
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
  });

  it('a trailing slash is the same path', async () => {
    const res = await request(gw.server).delete('/agents/').set('X-Api-Key', apiKey);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
  });

  it('admin paths: 405 while /admin is enabled, 404 like any unknown path while it is not', async () => {
    const on = await request(gw.server).get('/admin/organizations');
    expect(on.status).toBe(405);
    expect(on.headers.allow).toBe('POST');
    const off = await gw.startSibling({ ADMIN_TOKEN: '' });
    try {
      const res = await request(off.app).get('/admin/organizations');
      expect(res.status).toBe(404);
      expect(res.headers.allow).toBeUndefined();
    } finally {
      await off.close();
    }
  });

  it('a wrong method on an unknown path stays 404', async () => {
    const res = await request(gw.server).delete('/no-such-thing').set('X-Api-Key', apiKey);
    expect(res.status).toBe(404);
    expect(res.headers.allow).toBeUndefined();
  });
});
