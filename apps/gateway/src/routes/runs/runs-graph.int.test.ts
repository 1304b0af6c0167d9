import { RunGraphSchema, type Flow } from '@weft/contracts';
import request from 'supertest';
import { postAgent, reviewFlow, splitFlow } from '../../testing/catalog-fixtures';
import { expectSchema } from '../../testing/expect-schema';
import { startRunStack, type RunStack } from '../../testing/test-runs';

// GET /runs/{id}/graph and /app-runs/{id}/graph: the flow of the version a run
// executes, for drawing it, with each node's state. Only the test of the
// states starts a worker; the others need nothing to execute.

let stack: RunStack;
let org: { id: string; apiKey: string };

beforeAll(async () => {
  stack = await startRunStack({}, false);
  org = await stack.gw.createOrg('Drawer', 100);
});
afterAll(() => stack.close());

/** Two texts joined, routed by length; a note; a port that reads a route and a run input. */
const branchingFlow = (): Flow => ({
  nodes: [
    { id: 'note', type: 'comment', description: 'Joins two texts, then keeps the long ones' },
    { id: 'a', type: 'text_input', description: 'First', required: true },
    { id: 'b', type: 'text_input', description: 'Second', required: true },
    { id: 'join', type: 'prompt_concatenate', params: { separator: ' ' }, inputs: { parts: ['a', 'b'] } },
    {
      id: 'r',
      type: 'router',
      params: { routes: [{ port: 'long', when: { matches: '.{10}' } }], default_port: 'short' },
      inputs: { value: 'join' },
    },
    { id: 'long', type: 'prompt_concatenate', inputs: { parts: ['r.long', 'a'] } },
  ],
  outputs: [{ id: 'long', type: 'text', description: 'The long ones' }],
});

/** GET as `key`; null sends no credentials. */
const get = (path: string, key: string | null = org.apiKey) => {
  const req = request(stack.gw.app).get(path);
  return key ? req.set('X-Api-Key', key) : req;
};

/** The flow's part of a graph: what does not change while the run executes. */
function shapeOf(body: unknown) {
  const graph = expectSchema(RunGraphSchema, body);
  return { ...graph, nodes: graph.nodes.map(({ id, type, description }) => ({ id, type, description })) };
}

async function startRun(path: '/runs' | '/app-runs', body: object, key = org.apiKey): Promise<string> {
  const res = await request(stack.gw.app).post(path).set('X-Api-Key', key).send(body);
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

test('an agent run: every node in flow order, one edge per upstream node each port reads', async () => {
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow: branchingFlow() });
  const runId = await startRun('/runs', {
    agent_id: agent.id,
    inputs: [
      { id: 'a', value: 'x' },
      { id: 'b', value: 'y' },
    ],
  });
  const res = await get(`/runs/${runId}/graph`);
  expect(res.status).toBe(200);
  expect(shapeOf(res.body)).toEqual({
    nodes: [
      { id: 'note', type: 'comment', description: 'Joins two texts, then keeps the long ones' },
      { id: 'a', type: 'text_input', description: 'First' },
      { id: 'b', type: 'text_input', description: 'Second' },
      { id: 'join', type: 'prompt_concatenate', description: null },
      { id: 'r', type: 'router', description: null },
      { id: 'long', type: 'prompt_concatenate', description: null },
    ],
    edges: [
      { from: 'a', to: 'join', port: 'parts' },
      { from: 'b', to: 'join', port: 'parts' },
      { from: 'join', to: 'r', port: 'value' },
      { from: 'r', to: 'long', port: 'parts' },
      { from: 'a', to: 'long', port: 'parts' },
    ],
  });
});

test('the graph is of the version the run executes, not of a version published since', async () => {
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow: splitFlow() });
  const before = await startRun('/runs', { agent_id: agent.id, inputs: [{ id: 'text', value: 'a\nb' }] });
  const published = await request(stack.gw.app)
    .post(`/agents/${agent.id}/versions`)
    .set('X-Api-Key', org.apiKey)
    .send({ flow: reviewFlow() });
  expect(published.status).toBe(201);
  const after = await startRun('/runs', { agent_id: agent.id, inputs: [{ id: 'topic', value: 'tea' }] });

  const nodesOf = async (runId: string) =>
    ((await get(`/runs/${runId}/graph`)).body as { nodes: { id: string }[] }).nodes.map((n) => n.id);
  expect(await nodesOf(before)).toEqual(['text', 'lines', 'first']);
  expect(await nodesOf(after)).toEqual(['topic', 'tone', 'join', 'check']);
});

test("an app run: the flow of the app's agent", async () => {
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow: reviewFlow() });
  const app = await request(stack.gw.app)
    .post('/apps')
    .set('X-Api-Key', org.apiKey)
    .send({
      name: 'Post idea',
      description: 'd',
      agent_id: agent.id,
      inputs: [{ id: 'topic', type: 'text', name: 'Topic', required: true }],
      outputs: [{ id: 'check', type: 'text', description: 'The approved idea' }],
    });
  expect(app.status).toBe(201);
  const runId = await startRun('/app-runs', { app_id: app.body.id, inputs: [{ id: 'topic', value: 'tea' }] });

  const res = await get(`/app-runs/${runId}/graph`);
  expect(res.status).toBe(200);
  expect(shapeOf(res.body)).toEqual({
    nodes: [
      { id: 'topic', type: 'text_input', description: 'Topic of the post' },
      { id: 'tone', type: 'text_input', description: 'Tone' },
      { id: 'join', type: 'prompt_concatenate', description: null },
      { id: 'check', type: 'human_review', description: null },
    ],
    edges: [
      { from: 'topic', to: 'join', port: 'parts' },
      { from: 'tone', to: 'join', port: 'parts' },
      { from: 'join', to: 'check', port: 'value' },
    ],
  });
  // Like GET of the run: an app run is not at /runs, nor an agent run at /app-runs.
  expect((await get(`/runs/${runId}/graph`)).status).toBe(404);
});

test('each node with its state when read: settled ones as the run left them, one not reached pending', async () => {
  await stack.startWorker();
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow: branchingFlow() });
  // "x y" is short: the router takes its default port, and `long` is skipped.
  const runId = await startRun('/runs', {
    agent_id: agent.id,
    inputs: [
      { id: 'a', value: 'x' },
      { id: 'b', value: 'y' },
    ],
  });
  for (const deadline = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 100))) {
    if ((await get(`/runs/${runId}`)).body.status !== 'in_progress') break;
    if (Date.now() > deadline) throw new Error('the run did not end');
  }
  const graph = expectSchema(RunGraphSchema, (await get(`/runs/${runId}/graph`)).body);
  const states = Object.fromEntries(graph.nodes.map((n) => [n.id, n.status]));
  expect(states).toEqual({
    // A comment never executes.
    note: 'pending',
    a: 'completed',
    b: 'completed',
    join: 'completed',
    r: 'completed',
    long: 'skipped',
  });
  const join = graph.nodes.find((n) => n.id === 'join')!;
  expect(join).toMatchObject({ cost: expect.any(Number), error: null });
  expect(Date.parse(join.completed_at!)).toBeGreaterThanOrEqual(Date.parse(join.started_at!));
});

describe('answers like GET of the run', () => {
  let agentRun: string;
  let otherOrgKey: string;

  beforeAll(async () => {
    const agent = await postAgent(stack.gw.app, org.apiKey, { flow: splitFlow() });
    agentRun = await startRun('/runs', { agent_id: agent.id, inputs: [{ id: 'text', value: 'a' }] });
    otherOrgKey = (await stack.gw.createOrg('Nosy')).apiKey;
  });

  test("another organization's run is exactly a missing one", async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const answers = await Promise.all([
      get(`/runs/${agentRun}/graph`, otherOrgKey),
      get(`/runs/${missing}/graph`, otherOrgKey),
      get(`/app-runs/${missing}/graph`, otherOrgKey),
      get(`/runs/${agentRun}`, otherOrgKey),
    ]);
    for (const res of answers) expect([res.status, res.body]).toEqual([404, { detail: 'Run not found' }]);
  });

  test('401 without credentials, 422 for an id that is not one', async () => {
    const anonymous = await get(`/runs/${agentRun}/graph`, null);
    expect(anonymous.status).toBe(401);
    expect((await get(`/app-runs/${agentRun}/graph`, null)).status).toBe(401);
    const malformed = await get('/runs/not-a-run/graph');
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail).toEqual([expect.objectContaining({ loc: ['path', 'run_id'] })]);
  });
});
