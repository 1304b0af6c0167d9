import type { Flow } from '@weft/contracts';
import { CredentialStore, newKeyEntry, parseKeyring } from '@weft/credentials';
import { createNodeRoutes } from '@weft/providers';
import { startOpenAIDouble, type OpenAIDouble } from '@weft/testing';
import pino from 'pino';
import request from 'supertest';
import { failureOf, resultOf, runFlow, type Org } from '../../testing/media/runs';
import { TEST_ADMIN_TOKEN } from '../../testing/test-gateway';
import { startRunStack, type RunStack } from '../../testing/test-runs';

// An organization's own provider keys: checked with the provider, sealed at
// rest, never shown, used by its runs before the deployment's, invisible to
// other organizations.

const DEPLOYMENT_KEY = 'sk-deployment-0000000000';
const ORG_KEY = 'sk-org-own-key-secret-7777';
const KEY_V1 = newKeyEntry(1);
const admin = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

let double: OpenAIDouble;
let stack: RunStack;
let a: Org;
let b: Org;
const workerLog: string[] = [];

beforeAll(async () => {
  double = await startOpenAIDouble();
  double.acceptedKeys = new Set([DEPLOYMENT_KEY, ORG_KEY]);
  const env = {
    CREDENTIALS_KEY: KEY_V1,
    OPENAI_API_KEY: DEPLOYMENT_KEY,
    OPENAI_BASE_URL: double.baseURL,
    OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
  };
  stack = await startRunStack(env, false);
  const organizations = new CredentialStore(stack.gw.deps.db.pool, parseKeyring(KEY_V1));
  await stack.startWorker({
    nodeRoutes: createNodeRoutes(
      { OPENAI_API_KEY: DEPLOYMENT_KEY, OPENAI_BASE_URL: double.baseURL },
      { organizations, outboundAllowList: ['127.0.0.1'] },
    ),
    logger: pino({ level: 'trace' }, { write: (line: string) => void workerLog.push(line) }),
  });
  [a, b] = await Promise.all([stack.gw.createOrg('A', 1000), stack.gw.createOrg('B', 1000)]);
});
afterAll(async () => {
  await stack?.close();
  await double?.close();
});

const post = (org: Org, body: object) =>
  request(stack.gw.app).post('/credentials').set('X-Api-Key', org.apiKey).send(body);

const llmFlow = (params: Record<string, unknown> = {}): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'write', type: 'llm', params, inputs: { prompt: 'topic' } },
  ],
  outputs: [{ id: 'write', type: 'text', description: 'The answer' }],
});

/** The key the double was called with for the run asking about `topic`. */
async function keyUsedFor(org: Org, topic: string, params: Record<string, unknown> = {}) {
  const run = await runFlow(stack.gw, org.apiKey, llmFlow(params), [{ id: 'topic', value: topic }]);
  const seen = double.requests.filter((r) => JSON.stringify(r.body).includes(topic));
  return { run, key: seen.at(-1)?.authorization?.replace('Bearer ', '') };
}

test('a stored credential is checked with the provider, shown by its last 4 characters only, sealed at rest', async () => {
  const res = await post(a, { provider: 'openai', name: 'ours', secret: ORG_KEY });
  expect(res.status).toBe(201);
  expect(res.body).toEqual({
    id: expect.any(String),
    provider: 'openai',
    name: 'ours',
    base_url: null,
    settings: null,
    last4: '7777',
    created_at: expect.any(String),
  });
  expect(JSON.stringify(res.body)).not.toContain(ORG_KEY);
  expect(double.requests.some((r) => r.path === '/v1/models' && r.authorization === `Bearer ${ORG_KEY}`)).toBe(true);
  const { rows } = await stack.gw.deps.db.pool.query<{ row: string }>(
    "SELECT row_to_json(c)::text AS row, encode(sealed, 'escape') AS raw FROM provider_credentials c WHERE id = $1",
    [res.body.id],
  );
  expect(rows[0]!.row).not.toContain(ORG_KEY);
  expect(JSON.stringify(rows[0])).not.toContain('own-key');

  const listed = await request(stack.gw.app).get('/credentials').set('X-Api-Key', a.apiKey);
  expect(listed.body.data).toEqual([res.body]);
  await request(stack.gw.app).delete(`/credentials/${res.body.id}`).set('X-Api-Key', a.apiKey).expect(204);
});

test('a key the provider refuses is not stored: 422 at the secret', async () => {
  const res = await post(a, { provider: 'openai', secret: 'sk-wrong-key-123456' });
  expect(res.status).toBe(422);
  expect(res.body.detail[0]).toMatchObject({
    loc: ['body', 'secret'],
    msg: 'openai refused the credential (HTTP 401)',
    type: 'credential_refused',
  });
  const listed = await request(stack.gw.app).get('/credentials').set('X-Api-Key', a.apiKey);
  expect(listed.body.data).toEqual([]);
});

test.each([
  [{ provider: 'openai', secret: 'sk' }, ['body', 'secret']],
  [{ provider: 'nobody', secret: 'sk-0123456789' }, ['body', 'provider']],
  [{ provider: 's3', secret: 'sk-0123456789' }, ['body', 'settings']],
  [
    { provider: 'openai', secret: 'sk-0123456789', settings: { bucket: 'bucket', access_key_id: 'k' } },
    ['body', 'settings'],
  ],
])('%j is refused at %j', async (body, loc) => {
  const res = await post(a, body);
  expect(res.status).toBe(422);
  expect(res.body.detail[0].loc).toEqual(loc);
});

test('a base URL the outbound rules refuse is 422 at base_url, before any request leaves', async () => {
  const res = await post(a, { provider: 'openai', secret: ORG_KEY, base_url: 'http://169.254.169.254/v1' });
  expect(res.status).toBe(422);
  expect(res.body.detail[0].loc).toEqual(['body', 'base_url']);
  expect(res.body.detail[0].msg).toMatch(/169\.254\.169\.254 is a (linkLocal|cloud metadata) address/);
});

test("runs use the organization's own key before the deployment's; other organizations never see it", async () => {
  const stored = await post(a, { provider: 'openai', secret: ORG_KEY, base_url: double.baseURL });
  expect(stored.status).toBe(201);
  const id: string = stored.body.id;

  const ownRun = await keyUsedFor(a, 'whose key is this');
  expect(ownRun.run.status).toBe('completed');
  expect(ownRun.key).toBe(ORG_KEY);
  const otherRun = await keyUsedFor(b, 'and this one');
  expect(otherRun.key).toBe(DEPLOYMENT_KEY);

  // Another organization's credential answers like a missing one, in the API and in a flow.
  const missing = '0195a3b0-0000-7000-8000-00000000dead';
  for (const path of [`/credentials/${id}`, `/credentials/${missing}`]) {
    const got = await request(stack.gw.app).get(path).set('X-Api-Key', b.apiKey);
    expect([got.status, got.body]).toEqual([404, { detail: 'Credential not found' }]);
    const deleted = await request(stack.gw.app).delete(path).set('X-Api-Key', b.apiKey);
    expect([deleted.status, deleted.body]).toEqual([404, { detail: 'Credential not found' }]);
  }
  const borrowed = await keyUsedFor(b, 'borrowing a key', { credential_id: id });
  expect(failureOf(borrowed.run)).toEqual({
    reason: 'invalid_input',
    error: `Node 'write' (llm): params.credential_id: the organization has no credential ${id}`,
  });
  expect(borrowed.key).toBeUndefined();

  // Named by the node, the credential serves too.
  const named = await keyUsedFor(a, 'named credential', { credential_id: id });
  expect([named.run.status, named.key]).toEqual(['completed', ORG_KEY]);
  expect(resultOf(named.run, 'write')).toBe('echo: named credential');

  // Deleted: the deployment's key serves again at once.
  await request(stack.gw.app).delete(`/credentials/${id}`).set('X-Api-Key', a.apiKey).expect(204);
  expect((await keyUsedFor(a, 'after deletion')).key).toBe(DEPLOYMENT_KEY);
});

test('a credential the provider refuses later fails the run naming the credential, not the deployment setting', async () => {
  const stored = await post(a, { provider: 'openai', secret: ORG_KEY });
  double.acceptedKeys = new Set([DEPLOYMENT_KEY]);
  try {
    const { run } = await keyUsedFor(a, 'revoked at the provider');
    expect(failureOf(run)).toEqual({
      reason: 'provider_auth_required',
      error: `Node 'write': the provider refused the credentials (HTTP 401); check the organization's credential ${stored.body.id}`,
    });
  } finally {
    double.acceptedKeys = new Set([DEPLOYMENT_KEY, ORG_KEY]);
    await request(stack.gw.app).delete(`/credentials/${stored.body.id}`).set('X-Api-Key', a.apiKey).expect(204);
  }
});

test('the operator manages an organization’s credentials under /admin, and re-seals them after a key rotation', async () => {
  const created = await request(stack.gw.app)
    .post(`/admin/organizations/${b.id}/credentials`)
    .set(admin)
    .send({ provider: 'openai', secret: ORG_KEY });
  expect(created.status).toBe(201);
  const listed = await request(stack.gw.app).get(`/admin/organizations/${b.id}/credentials`).set(admin);
  expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([created.body.id]);
  const unknownOrg = await request(stack.gw.app)
    .get('/admin/organizations/0195a3b0-0000-7000-8000-00000000dead/credentials')
    .set(admin);
  expect(unknownOrg.status).toBe(404);

  // Rotation: a gateway with a second key version re-seals under it; a worker with only the new key opens it.
  const v2 = newKeyEntry(2);
  const rotated = await stack.gw.startSibling({
    CREDENTIALS_KEY: `${KEY_V1},${v2}`,
    OPENAI_API_KEY: DEPLOYMENT_KEY,
    OPENAI_BASE_URL: double.baseURL,
  });
  try {
    const resealed = await request(rotated.app).post('/admin/credentials/reseal').set(admin);
    expect(resealed.status).toBe(200);
    expect(resealed.body.resealed).toBeGreaterThanOrEqual(1);
    const again = await request(rotated.app).post('/admin/credentials/reseal').set(admin);
    expect(again.body).toEqual({ resealed: 0 });
  } finally {
    await rotated.close();
  }
  const onlyV2 = new CredentialStore(stack.gw.deps.db.pool, parseKeyring(v2));
  expect((await onlyV2.forProvider(b.id, 'openai'))?.secret).toBe(ORG_KEY);

  await request(stack.gw.app)
    .delete(`/admin/organizations/${b.id}/credentials/${created.body.id}`)
    .set(admin)
    .expect(204);
  expect((await request(stack.gw.app).get('/credentials').set('X-Api-Key', b.apiKey)).body.data).toEqual([]);
});

test('without CREDENTIALS_KEY the deployment stores no credentials: 503 saying why', async () => {
  const keyless = await stack.gw.startSibling({ CREDENTIALS_KEY: '' });
  try {
    const res = await request(keyless.app)
      .post('/credentials')
      .set('X-Api-Key', a.apiKey)
      .send({ provider: 'openai', secret: ORG_KEY });
    expect(res.status).toBe(503);
    expect(res.body.detail).toBe('This deployment stores no credentials: its operator has not set CREDENTIALS_KEY');
  } finally {
    await keyless.close();
  }
});

test('no secret ever reaches the worker’s logs', () => {
  const logs = workerLog.join('\n');
  expect(logs.length).toBeGreaterThan(0);
  expect(logs).not.toContain(ORG_KEY);
  expect(logs).not.toContain(DEPLOYMENT_KEY);
});

test('an organization chooses the model of a type for its own runs; others keep the deployment’s', async () => {
  const put = (type: string, body: object) =>
    request(stack.gw.app).put(`/node-routes/${type}`).set('X-Api-Key', a.apiKey).send(body);
  const chosen = await put('llm', { provider: 'openai', model: 'gpt-4.1-nano' });
  expect([chosen.status, chosen.body]).toEqual([200, { type: 'llm', provider: 'openai', model: 'gpt-4.1-nano' }]);
  const listed = await request(stack.gw.app).get('/node-routes').set('X-Api-Key', a.apiKey);
  expect(listed.body.data).toEqual([{ type: 'llm', provider: 'openai', model: 'gpt-4.1-nano' }]);

  const modelOf = async (org: Org, topic: string) => {
    await keyUsedFor(org, topic);
    return double.requests.filter((r) => JSON.stringify(r.body).includes(topic)).at(-1)?.body.model;
  };
  expect(await modelOf(a, 'chosen model')).toBe('gpt-4.1-nano');
  expect(await modelOf(b, 'default model')).toBe('gpt-4o-mini');
  const shown = await request(stack.gw.app).get('/node-types/llm').set('X-Api-Key', a.apiKey);
  expect(shown.body.route).toEqual({ provider: 'openai', model: 'gpt-4.1-nano' });

  const wrongProvider = await put('llm', { provider: 'fal' });
  expect(wrongProvider.status).toBe(422);
  expect(wrongProvider.body.detail[0]).toMatchObject({ loc: ['body', 'provider'] });
  expect((await put('text_input', { provider: 'openai' })).status).toBe(422);
  expect((await put('poem', { provider: 'openai' })).status).toBe(404);

  await request(stack.gw.app).delete('/node-routes/llm').set('X-Api-Key', a.apiKey).expect(204);
  expect(await modelOf(a, 'after the choice is dropped')).toBe('gpt-4o-mini');
  expect((await request(stack.gw.app).delete('/node-routes/llm').set('X-Api-Key', a.apiKey)).status).toBe(404);
});

test('a type with a local route can be chosen back to local by an organization', async () => {
  const res = await request(stack.gw.app)
    .put('/node-routes/text_to_speech')
    .set('X-Api-Key', a.apiKey)
    .send({ provider: 'local' });
  expect(res.status).toBe(200);
  const shown = await request(stack.gw.app).get('/node-types/text_to_speech').set('X-Api-Key', a.apiKey);
  expect(shown.body.route).toEqual({ provider: 'local', model: 'espeak-ng' });
  await request(stack.gw.app).delete('/node-routes/text_to_speech').set('X-Api-Key', a.apiKey).expect(204);
});
