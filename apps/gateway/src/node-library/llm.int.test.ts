import type { Flow } from '@weft/contracts';
import { createNodeRoutes } from '@weft/providers';
import pino from 'pino';
import sharp from 'sharp';
import { balanceOf } from '../testing/balance';
import { postAgent } from '../testing/catalog-fixtures';
import request from 'supertest';
import { failureOf, resultOf, runAgent, runFlow, uploadAsset, type Org } from '../testing/media/runs';
import { startOpenAIDouble, type OpenAIDouble } from '@weft/testing';
import { startRunStack, type RunStack } from '../testing/test-runs';

// llm through an OpenAI-compatible server: a loopback double driven by the real SDK.

const KEY = 'sk-test-0123456789-very-secret';
let double: OpenAIDouble;
let stack: RunStack;
let routed: RunStack;
let keyless: RunStack;
let org: Org;
const workerLog: string[] = [];

beforeAll(async () => {
  double = await startOpenAIDouble();
  const routes = (nodeRoutes: string | undefined, apiKey: string | undefined) =>
    createNodeRoutes({ OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: double.baseURL, NODE_ROUTES: nodeRoutes });
  [stack, routed, keyless] = await Promise.all([
    startRunStack(
      {},
      {
        nodeRoutes: routes(undefined, KEY),
        logger: pino({ level: 'trace' }, { write: (line: string) => void workerLog.push(line) }),
      },
    ),
    startRunStack(
      { OPENAI_API_KEY: KEY, NODE_ROUTES: 'llm=openai:gpt-4.1-nano' },
      { nodeRoutes: routes('llm=openai:gpt-4.1-nano', KEY) },
    ),
    startRunStack({}, { nodeRoutes: routes(undefined, undefined) }),
  ]);
  org = await stack.gw.createOrg('LLM', 1000);
});
afterEach(() => double.respond('ok'));
afterAll(async () => {
  await Promise.all([stack?.close(), routed?.close(), keyless?.close()]);
  await double?.close();
});

const llmFlow = (params: Record<string, unknown> = {}, output: 'text' | 'data' = 'text'): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'write', type: 'llm', params, inputs: { prompt: 'topic' } },
  ],
  outputs: [{ id: 'write', type: output, description: 'The answer' }],
});

/** Runs `flow` on `on` with `topic` and returns the run and the requests the double received for it. */
async function ask(topic: string, flow = llmFlow(), on = stack, apiKey = org.apiKey) {
  const run = await runFlow(on.gw, apiKey, flow, [{ id: 'topic', value: topic }]);
  const requests = double.requests.filter((r) => JSON.stringify(r.body.messages).includes(topic));
  return { run, requests, last: requests.at(-1)?.body };
}

test('text_input → llm: the answer is the model’s, sent with the route’s default model and the key', async () => {
  const { run, requests, last } = await ask('a haiku about cats');
  expect(run.status).toBe('completed');
  expect(resultOf(run, 'write')).toBe('echo: a haiku about cats');
  expect(requests).toHaveLength(1);
  expect(requests[0]!.authorization).toBe(`Bearer ${KEY}`);
  expect(last).toMatchObject({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a haiku about cats' }] });
  expect(last).not.toHaveProperty('temperature');
  expect(last).not.toHaveProperty('response_format');
});

test('system, concatenated prompt, temperature, max_tokens and params.model reach the request', async () => {
  const flow: Flow = {
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'rules', type: 'text_input' },
      { id: 'joined', type: 'prompt_concatenate', inputs: { parts: ['topic', 'topic'] } },
      {
        id: 'write',
        type: 'llm',
        params: { model: 'gpt-4.1', temperature: 0.3, max_tokens: 77, options: { seed: 42 } },
        inputs: { prompt: 'joined', system: 'rules' },
      },
    ],
    outputs: [{ id: 'write', type: 'text', description: 'The answer' }],
  };
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow });
  const run = await runAgent(stack.gw, org.apiKey, agent.id, [
    { id: 'topic', value: 'owls' },
    { id: 'rules', value: 'Answer in French.' },
  ]);
  expect(run.status).toBe('completed');
  const body = double.requests.at(-1)!.body;
  expect(body).toMatchObject({ model: 'gpt-4.1', temperature: 0.3, max_tokens: 77, seed: 42 });
  expect(body.messages![0]).toEqual({ role: 'system', content: 'Answer in French.' });
  expect(body.messages!.slice(1).every((m) => m.role === 'user')).toBe(true);
  expect(JSON.stringify(body.messages)).toContain('owls');
  expect(resultOf(run, 'write')).toBe(`echo: ${body.messages!.at(-1)!.content as string}`);
});

test('NODE_ROUTES chooses the model of the deployment', async () => {
  const other = await routed.gw.createOrg('Routed', 100);
  const { run, last } = await ask('routed question', llmFlow(), routed, other.apiKey);
  expect(run.status).toBe('completed');
  expect(last?.model).toBe('gpt-4.1-nano');
});

test('json_schema: the request asks for it strictly and the output is the data answered', async () => {
  const schema = {
    type: 'object',
    properties: { title: { type: 'string' }, score: { type: 'number' } },
    required: ['title', 'score'],
    additionalProperties: false,
  };
  double.respond('json');
  const { run, last } = await ask('rate cats', llmFlow({ json_schema: schema }, 'data'));
  expect(run.status).toBe('completed');
  expect(resultOf(run, 'write')).toEqual({ title: 'Cats', score: 7 });
  expect(last?.response_format).toEqual({
    type: 'json_schema',
    json_schema: { name: 'answer', schema, strict: true },
  });
});

test('an answer that is not the JSON asked for fails with provider_error', async () => {
  double.respond('ok');
  const { run } = await ask('not json please', llmFlow({ json_schema: { type: 'object' } }, 'data'));
  expect(failureOf(run).reason).toBe('provider_error');
});

test('an image input reaches the request as a data URL of its bytes', async () => {
  const png = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#ff0000' } })
    .png()
    .toBuffer();
  const id = await uploadAsset(stack.gw, org.apiKey, png, 'red.png');
  const flow: Flow = {
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'pic', type: 'image_input' },
      { id: 'write', type: 'llm', inputs: { prompt: 'topic', images: 'pic' } },
    ],
    outputs: [{ id: 'write', type: 'text', description: 'The answer' }],
  };
  const run = await runFlow(stack.gw, org.apiKey, flow, [
    { id: 'topic', value: 'what colour is it' },
    { id: 'pic', value: { asset_ids: [id] } },
  ]);
  expect(run.status).toBe('completed');
  expect(resultOf(run, 'write')).toBe('echo: what colour is it');
  const content = double.requests.at(-1)!.body.messages!.at(-1)!.content as {
    type: string;
    image_url?: { url: string };
  }[];
  expect(content[0]).toEqual({ type: 'text', text: 'what colour is it' });
  expect(content[1]?.image_url?.url).toBe(`data:image/png;base64,${png.toString('base64')}`);
});

test('the cost is the price applied to the usage reported, rounded up, charged on the run', async () => {
  double.usage = { prompt_tokens: 12_345, completion_tokens: 6_789 };
  const before = await balanceOf(stack.gw.deps.db, org.id);
  // Without an estimate of its author's, the agent reserves what its llm node estimates (10 credits):
  // a run is charged what the provider used, at most what it reserved.
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow: llmFlow() });
  expect(agent.estimated_cost).toBe(10);
  const run = await runAgent(stack.gw, org.apiKey, agent.id, [{ id: 'topic', value: 'what does it cost' }]);
  // gpt-4o-mini by default: 150 credits per 1M input tokens, 600 per 1M output → 5.925 → 6.
  expect(run.status).toBe('completed');
  expect(run.cost).toBe(6);
  expect(await balanceOf(stack.gw.deps.db, org.id)).toBe(before - 6);
  // The attempt's charge is recorded with the usage, provider and model it was priced from.
  const { rows } = await stack.gw.deps.db.pool.query(
    'SELECT node_id, node_type, provider, model, usage, credits FROM node_charges WHERE run_id = $1',
    [run.id],
  );
  expect(rows).toEqual([
    {
      node_id: 'write',
      node_type: 'llm',
      provider: 'openai',
      model: 'gpt-4o-mini',
      usage: { input_tokens: 12_345, output_tokens: 6_789 },
      credits: 6,
    },
  ]);
  // The run's ledger explains the charge node by node.
  const ledger = await stack.gw.deps.db.pool.query(
    'SELECT kind, amount, note FROM credit_ledger WHERE run_id = $1 ORDER BY created_at, id',
    [run.id],
  );
  expect(ledger.rows).toEqual([
    { kind: 'reserve', amount: -10, note: expect.any(String) },
    { kind: 'release', amount: 10, note: 'reservation released' },
    { kind: 'charge', amount: -6, note: "node 'write' (llm)" },
  ]);
});

test.each([
  ['unauthorized', 'provider_auth_required', /refused the credentials \(HTTP 401\); check OPENAI_API_KEY/],
  ['content_policy', 'content_policy', /safety system/],
  ['bad_request', 'invalid_input', /Invalid value for 'temperature'/],
] as const)('a %s answer fails the run with %s', async (outcome, reason, message) => {
  double.respond(outcome);
  const topic = `outcome ${outcome}`;
  const { run, requests } = await ask(topic);
  const failure = failureOf(run);
  expect(failure.reason).toBe(reason);
  expect(failure.error).toMatch(message);
  expect(failure.error).toContain("Node 'write'");
  expect(failure.error).not.toContain('sk-te');
  expect(requests).toHaveLength(1);
});

test('a 500 every time fails with provider_error after the SDK’s retries', async () => {
  double.respond('server_error');
  const { run, requests } = await ask('server trouble');
  expect(failureOf(run).reason).toBe('provider_error');
  expect(requests).toHaveLength(3);
});

test('a 429 with Retry-After, then an answer: the run completes', async () => {
  double.respond('rate_limited_then_ok');
  const { run, requests } = await ask('busy hour');
  expect(run.status).toBe('completed');
  expect(resultOf(run, 'write')).toBe('echo: busy hour');
  expect(requests).toHaveLength(2);
});

test('a provider that never answers: timeout within the node’s timeout_ms', async () => {
  double.respond('stall');
  const { run } = await ask('silence', llmFlow({ timeout_ms: 1000 }));
  expect(failureOf(run)).toEqual({ reason: 'timeout', error: expect.stringMatching(/1000 ms/) });
});

test('no OPENAI_API_KEY: provider_auth_required naming the setting', async () => {
  const other = await keyless.gw.createOrg('Keyless', 100);
  const { run, requests } = await ask('no key here', llmFlow(), keyless, other.apiKey);
  const failure = failureOf(run);
  expect(failure.reason).toBe('provider_auth_required');
  expect(failure.error).toBe(
    "Node 'write' (llm) has no provider in this deployment: set OPENAI_API_KEY or store the organization's own openai credential (POST /credentials) (and NODE_ROUTES=llm=openai:<model> to choose a model)",
  );
  expect(requests).toHaveLength(0);
});

test('a param out of range is refused at publication', async () => {
  await expect(postAgent(stack.gw.app, org.apiKey, { flow: llmFlow({ temperature: 3 }) })).rejects.toThrow(/422/);
});

test('the key never appears in the worker’s logs', () => {
  expect(workerLog.length).toBeGreaterThan(0);
  expect(workerLog.join('\n')).not.toContain(KEY);
});

test('GET /node-types shows the route of llm where the deployment has one, never the key', async () => {
  const other = await routed.gw.createOrg('Describe', 1);
  const res = await request(routed.gw.app).get('/node-types/llm').set('X-Api-Key', other.apiKey).expect(200);
  expect(res.body.route).toEqual({ provider: 'openai', model: 'gpt-4.1-nano' });
  const list = await request(routed.gw.app).get('/node-types').set('X-Api-Key', other.apiKey).expect(200);
  expect(JSON.stringify(list.body)).not.toContain(KEY);
  expect(list.body.data.find((t: { type: string }) => t.type === 'music_generation').route).toBeNull();
  const bareOrg = await keyless.gw.createOrg('Bare', 1);
  const bare = await request(keyless.gw.app).get('/node-types/llm').set('X-Api-Key', bareOrg.apiKey).expect(200);
  expect(bare.body.route).toBeNull();
});

test('params.provider naming a provider that does not serve llm fails with invalid_input naming the node', async () => {
  const { run, requests } = await ask('which provider', llmFlow({ provider: 'fal' }));
  const failure = failureOf(run);
  expect(failure.reason).toBe('invalid_input');
  expect(failure.error).toBe(
    "Node 'write' (llm): params.provider: provider 'fal' does not serve llm in this version (providers serving it: openai, replicate)",
  );
  expect(requests).toHaveLength(0);
});
