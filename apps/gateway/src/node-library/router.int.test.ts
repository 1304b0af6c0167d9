import type { Flow } from '@weft/contracts';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { balanceOf } from '../testing/balance';
import { postAgent } from '../testing/catalog-fixtures';
import { startFakeProvider, type FakeProvider } from '../testing/fake-provider';
import { runInvariantViolations } from '../testing/invariants';
import { pollRun, startRunStack, type RunBody, type RunStack } from '../testing/test-runs';

// The router through the API with a real worker: the route taken runs, the
// nodes only the other routes lead to end skipped (never executed, nothing
// charged, null results), and the run completes.

let stack: RunStack;
let provider: FakeProvider;
let dataProvider: { url: string; close(): Promise<void> };
let org: { id: string; apiKey: string };

/** A provider answering data: `{order: {status: <the prompt it got>}}`. */
async function startDataProvider() {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { inputs } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { inputs: { prompt: string } };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'data', value: { order: { status: inputs.prompt, lines: 2 } } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/order`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

beforeAll(async () => {
  provider = await startFakeProvider();
  dataProvider = await startDataProvider();
  stack = await startRunStack();
  org = await stack.gw.createOrg('Router', 100);
});
afterAll(async () => {
  await stack.close();
  await provider.close();
  await dataProvider.close();
});

/** text_input → router → (yes: prompt_concatenate → output `a`) / (no: generic_provider, 3 credits → output `b`). */
const branches = (routerParams: Record<string, unknown>): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'r', type: 'router', params: routerParams, inputs: { value: 'topic' } },
    { id: 'a', type: 'prompt_concatenate', params: { separator: ' | ' }, inputs: { parts: ['r.yes', 'topic'] } },
    { id: 'b', type: 'generic_provider', params: { url: provider.url('/ok'), cost: 3 }, inputs: { prompt: 'r.no' } },
  ],
  outputs: [
    { id: 'a', type: 'text', description: 'The yes branch' },
    { id: 'b', type: 'text', description: 'The no branch' },
  ],
});

const yesOrNo = {
  routes: [
    { port: 'yes', when: { equals: 'go' } },
    { port: 'no', when: { matches: '(?i)^stop' } },
  ],
};

async function agentOf(flow: Flow, estimatedCost = 3): Promise<string> {
  return (await postAgent(stack.gw.app, org.apiKey, { flow, estimated_cost: estimatedCost })).id;
}

async function runToEnd(agentId: string, topic: string): Promise<RunBody> {
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agentId, inputs: [{ id: 'topic', value: topic }] });
  expect(res.status).toBe(201);
  return pollRun(stack.gw, org.apiKey, `/runs/${res.body.id}`);
}

async function nodeStatuses(runId: string) {
  const rows = await stack.gw.deps.db.prisma.nodeExecution.findMany({ where: { runId } });
  return Object.fromEntries(rows.map((n) => [n.nodeId, { status: n.status, cost: n.cost }]));
}

const providerCalls = (runId: string) =>
  provider.received.filter((r) => (r.body as { run_id?: string } | null)?.run_id === runId);

describe('a router between two branches', () => {
  let agentId: string;
  beforeAll(async () => {
    agentId = await agentOf(branches(yesOrNo));
  });

  test('the route taken runs; the provider on the other is never called, costs nothing, and its result is null', async () => {
    const before = await balanceOf(stack.gw.deps.db, org.id);
    const done = await runToEnd(agentId, 'go');
    expect(done).toMatchObject({ status: 'completed', progress: 1, cost: 0 });
    expect(done).not.toHaveProperty('current_node');
    expect(done.results).toEqual([
      { id: 'a', type: 'text', value: 'go | go', description: 'The yes branch' },
      { id: 'b', type: 'text', value: null, description: 'The no branch' },
    ]);
    expect(providerCalls(done.id)).toEqual([]);
    expect(await nodeStatuses(done.id)).toEqual({
      topic: { status: 'completed', cost: 0 },
      r: { status: 'completed', cost: 0 },
      a: { status: 'completed', cost: 0 },
      b: { status: 'skipped', cost: 0 },
    });
    // The reservation came back whole.
    expect(await balanceOf(stack.gw.deps.db, org.id)).toBe(before);
  });

  test('the other route: the provider is called with the routed value and charged; the first branch is skipped', async () => {
    const done = await runToEnd(agentId, 'Stop now');
    expect(done).toMatchObject({ status: 'completed', progress: 1, cost: 3 });
    expect(done.results).toEqual([
      expect.objectContaining({ id: 'a', value: null }),
      expect.objectContaining({ id: 'b', value: 'echo:{"prompt":"Stop now"}' }),
    ]);
    expect(providerCalls(done.id)).toHaveLength(1);
    expect(await nodeStatuses(done.id)).toMatchObject({
      a: { status: 'skipped' },
      b: { status: 'completed', cost: 3 },
    });
  });

  test('no route matching and no default_port: every branch is skipped and the run completes', async () => {
    const done = await runToEnd(agentId, 'maybe');
    expect(done).toMatchObject({ status: 'completed', progress: 1, cost: 0 });
    expect((done.results as { value: unknown }[]).map((r) => r.value)).toEqual([null, null]);
    expect(providerCalls(done.id)).toEqual([]);
    expect(await nodeStatuses(done.id)).toMatchObject({ a: { status: 'skipped' }, b: { status: 'skipped' } });
    expect(await runInvariantViolations(stack.gw.deps.db)).toEqual([]);
  });
});

test('default_port takes what no route matches', async () => {
  const agentId = await agentOf(branches({ routes: [{ port: 'yes', when: { equals: 'go' } }], default_port: 'no' }));
  const done = await runToEnd(agentId, 'anything else');
  expect(done).toMatchObject({ status: 'completed', progress: 1, cost: 3 });
  expect(done.results).toEqual([
    expect.objectContaining({ id: 'a', value: null }),
    expect.objectContaining({ id: 'b', value: 'echo:{"prompt":"anything else"}' }),
  ]);
});

test('path + equals routes on a property of data; a node reading both branches on optional ports gets the one taken', async () => {
  const flow: Flow = {
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'order', type: 'generic_provider', params: { url: dataProvider.url }, inputs: { prompt: 'topic' } },
      {
        id: 'r',
        type: 'router',
        params: { routes: [{ port: 'paid', when: { path: 'order.status', equals: 'paid' } }], default_port: 'open' },
        inputs: { value: 'order' },
      },
      { id: 'ship', type: 'prompt_concatenate', inputs: { parts: ['r.paid'] } },
      { id: 'remind', type: 'text_split', inputs: { text: 'r.open' } },
      // generic_provider's ports are optional: it runs with whichever branch brought a value.
      {
        id: 'either',
        type: 'generic_provider',
        params: { url: provider.url('/ok') },
        inputs: { shipped: 'ship', reminded: 'remind' },
      },
    ],
    outputs: [
      { id: 'r', type: 'data', description: 'The routed order' },
      { id: 'ship', type: 'text', description: '' },
      { id: 'remind', type: 'data', description: '' },
      { id: 'either', type: 'text', description: '' },
    ],
  };
  const agentId = await agentOf(flow, 0);
  const echoed = (value: unknown) => JSON.parse(String(value).replace(/^echo:/, '')) as unknown;

  const paid = await runToEnd(agentId, 'paid');
  expect(paid).toMatchObject({ status: 'completed', progress: 1 });
  const [routed, ship, remind, either] = (paid.results as { value: unknown }[]).map((r) => r.value);
  expect(routed).toEqual({ order: { status: 'paid', lines: 2 } });
  expect(JSON.parse(ship as string)).toEqual({ order: { status: 'paid', lines: 2 } });
  expect(remind).toBeNull();
  expect(echoed(either)).toEqual({ shipped: ship });
  expect(await nodeStatuses(paid.id)).toMatchObject({
    ship: { status: 'completed' },
    remind: { status: 'skipped' },
    either: { status: 'completed' },
  });

  const open = await runToEnd(agentId, 'open');
  const values = (open.results as { value: unknown }[]).map((r) => r.value);
  expect(values.slice(0, 3)).toEqual([
    { order: { status: 'open', lines: 2 } },
    null,
    ['{"order":{"status":"open","lines":2}}'],
  ]);
  expect(echoed(values[3])).toEqual({ reminded: ['{"order":{"status":"open","lines":2}}'] });
});

test('a review retry behind a router decides the skipped branch again when the router routes elsewhere', async () => {
  const flow: Flow = {
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'write', type: 'generic_provider', params: { url: provider.url('/takes') }, inputs: { prompt: 'topic' } },
      {
        id: 'r',
        type: 'router',
        params: { routes: [{ port: 'first', when: { contains: 'take 1' } }], default_port: 'later' },
        inputs: { value: 'write' },
      },
      { id: 'check', type: 'human_review', inputs: { value: 'r.first' } },
      { id: 'later', type: 'prompt_concatenate', inputs: { parts: ['r.later'] } },
    ],
    outputs: [
      { id: 'check', type: 'text', description: 'Reviewed first take' },
      { id: 'later', type: 'text', description: 'A later take' },
    ],
  };
  const agentId = await agentOf(flow, 0);
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agentId, inputs: [{ id: 'topic', value: 'cats' }] });
  const parked = await pollRun(stack.gw, org.apiKey, `/runs/${res.body.id}`, (r) => r.awaiting_human_review === true);
  expect(parked.progress).toBe(0.8);
  expect(await nodeStatuses(parked.id)).toMatchObject({
    check: { status: 'waiting_review' },
    later: { status: 'skipped' },
  });
  const review = (parked.pending_reviews as { id: string }[])[0]!;
  await request(stack.gw.app)
    .post(`/runs/${parked.id}/reviews/${review.id}`)
    .set('X-Api-Key', org.apiKey)
    .send({ decision: 'retry' })
    .expect(204);

  // Take 2 goes the other way: the review is skipped, the branch skipped before runs.
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${parked.id}`);
  expect(done).toMatchObject({ status: 'completed', progress: 1, awaiting_human_review: false });
  expect(done.results).toEqual([
    expect.objectContaining({ id: 'check', value: null }),
    expect.objectContaining({ id: 'later', value: 'write take 2 A\nwrite take 2 B' }),
  ]);
  expect(await nodeStatuses(parked.id)).toMatchObject({ check: { status: 'skipped' }, later: { status: 'completed' } });
});

test('cancelling a run parked behind a router leaves its skipped nodes skipped', async () => {
  const flow: Flow = {
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'r', type: 'router', params: yesOrNo, inputs: { value: 'topic' } },
      { id: 'check', type: 'human_review', inputs: { value: 'r.yes' } },
      { id: 'b', type: 'generic_provider', params: { url: provider.url('/ok') }, inputs: { prompt: 'r.no' } },
    ],
    outputs: [{ id: 'check', type: 'text', description: '' }],
  };
  const agentId = await agentOf(flow, 0);
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agentId, inputs: [{ id: 'topic', value: 'go' }] });
  const parked = await pollRun(stack.gw, org.apiKey, `/runs/${res.body.id}`, (r) => r.awaiting_human_review === true);
  await request(stack.gw.app).delete(`/runs/${parked.id}`).set('X-Api-Key', org.apiKey).expect(204);
  const ended = await pollRun(stack.gw, org.apiKey, `/runs/${parked.id}`);
  expect(ended.status).toBe('canceled');
  expect(await nodeStatuses(parked.id)).toMatchObject({ check: { status: 'canceled' }, b: { status: 'skipped' } });
});

describe('publication (422)', () => {
  const publish = (flow: Flow) =>
    request(stack.gw.app).post('/agents').set('X-Api-Key', org.apiKey).send({ name: 'Routed', description: '', flow });

  test('a route the router does not have', async () => {
    const flow = branches(yesOrNo);
    flow.nodes[2]!.inputs = { parts: ['r.nope'] };
    const res = await publish(flow);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'flow', 'nodes', 2, 'inputs', 'parts', 0],
        type: 'unknown_output',
        msg: "router 'r' has no output 'nope'; its outputs are 'yes', 'no'",
      }),
    ]);
  });

  test('a named output of a node that is not a router', async () => {
    const flow = branches(yesOrNo);
    flow.nodes[3]!.inputs = { prompt: 'topic.yes' };
    const res = await publish(flow);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'flow', 'nodes', 3, 'inputs', 'prompt'], type: 'no_named_outputs' }),
    ]);
  });

  test('a pattern RE2 cannot run', async () => {
    const res = await publish(branches({ routes: [{ port: 'yes', when: { matches: '(?<=a)b' } }] }));
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'flow', 'nodes', 1, 'params', 'routes', 0, 'when', 'matches'] }),
    ]);
  });
});
