import type { Flow } from '@weft/contracts';
import request from 'supertest';
import { postAgent } from '../../testing/catalog-fixtures';
import { startFakeProvider, type FakeProvider } from '../../testing/fake-provider';
import { pollRun, startRunStack, type RunStack } from '../../testing/test-runs';

// Failures, timeouts, credits and cancel with a fake provider speaking HTTP.

let stack: RunStack;
let provider: FakeProvider;
let org: { id: string; apiKey: string };

beforeAll(async () => {
  [stack, provider] = await Promise.all([startRunStack(), startFakeProvider()]);
  org = await stack.gw.createOrg('Failures', 100);
});
afterAll(async () => {
  await stack.close();
  await provider.close();
});

const providerFlow = (params: Record<string, unknown>): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'call', type: 'generic_provider', params, inputs: { prompt: 'topic' } },
  ],
  outputs: [{ id: 'call', type: 'text', description: 'Provider answer' }],
});

async function runAgent(flow: Flow, estimated = 0, apiKey = org.apiKey) {
  const agent = await postAgent(stack.gw.app, apiKey, { flow, estimated_cost: estimated });
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: 'cats' }] });
  expect(res.status).toBe(201);
  return res.body as { id: string; status: string };
}

const balance = async (orgId = org.id) =>
  (await stack.gw.deps.db.prisma.organization.findUniqueOrThrow({ where: { id: orgId } })).credits;

test('generic_provider posts {run_id, node_id, inputs} and its 2xx {type, value} is the result; cost is charged', async () => {
  const before = await balance();
  const run = await runAgent(providerFlow({ url: provider.url('/ok'), cost: 3 }), 5);
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${run.id}`);
  expect(done.status).toBe('completed');
  expect(done.results).toEqual([
    { id: 'call', type: 'text', value: 'echo:{"prompt":"cats"}', description: 'Provider answer' },
  ]);
  expect(done.cost).toBe(3);
  expect(provider.received.find((r) => r.path === '/ok')?.body).toEqual({
    run_id: run.id,
    node_id: 'call',
    inputs: { prompt: 'cats' },
  });
  expect(await balance()).toBe(before - 3);
  const ledger = await stack.gw.deps.db.prisma.creditLedgerEntry.findMany({ where: { runId: run.id } });
  expect(ledger.map((l) => [l.kind, l.amount]).sort()).toEqual([
    ['charge', -3],
    ['release', 5],
    ['reserve', -5],
  ]);
});

test.each([
  ['/unauthorized', 'provider_auth_required'],
  ['/content-policy', 'content_policy'],
  ['/bad-request', 'invalid_input'],
  ['/server-error', 'provider_error'],
  ['/not-json', 'provider_error'],
])('a provider answering %s fails the run with %s and a safe error', async (path, reason) => {
  const before = await balance();
  const run = await runAgent(providerFlow({ url: provider.url(path), cost: 2 }), 4);
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${run.id}`);
  expect(done).toMatchObject({ status: 'failed', failure_reason: reason, cost: 0 });
  expect(done.error).toEqual(expect.stringContaining("'call'"));
  expect(done.error).not.toMatch(/127\.0\.0\.1|at .*\.ts/);
  expect(await balance()).toBe(before);
});

test('a node past params.timeout_ms fails with timeout and the request is aborted', async () => {
  const run = await runAgent(providerFlow({ url: provider.url('/slow'), timeout_ms: 300 }));
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${run.id}`);
  expect(done).toMatchObject({ status: 'failed', failure_reason: 'timeout' });
  expect(done.error).toMatch(/300 ms/);
});

test('destinations on metadata or private addresses are refused, redirects included', async () => {
  for (const url of ['http://169.254.169.254/latest', 'http://10.1.2.3/x', provider.url('/redirect-to-metadata')]) {
    const run = await runAgent(providerFlow({ url }));
    const done = await pollRun(stack.gw, org.apiKey, `/runs/${run.id}`);
    expect(done).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
    expect(done.error).toMatch(/refused destination/);
  }
});

test('a node type without a provider fails with provider_auth_required naming the setting', async () => {
  const run = await runAgent({
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'write', type: 'llm', inputs: { prompt: 'topic' } },
    ],
    outputs: [{ id: 'write', type: 'text', description: '' }],
  });
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${run.id}`);
  expect(done).toMatchObject({ status: 'failed', failure_reason: 'provider_auth_required' });
  expect(done.error).toMatch(/PROVIDER_LLM/);
});

test('insufficient credits: the run is created failed at once and its external_id stays claimed', async () => {
  const poor = await stack.gw.createOrg('Poor', 2);
  const agent = await postAgent(stack.gw.app, poor.apiKey, {
    flow: providerFlow({ url: provider.url('/ok') }),
    estimated_cost: 3,
  });
  const body = { agent_id: agent.id, inputs: [{ id: 'topic', value: 'x' }], external_id: 'poor-1' };
  const res = await request(stack.gw.app).post('/runs').set('X-Api-Key', poor.apiKey).send(body);
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ status: 'failed', failure_reason: 'insufficient_credits', cost: 0 });
  const again = await request(stack.gw.app).post('/runs').set('X-Api-Key', poor.apiKey).send(body);
  expect(again.status).toBe(409);
  expect(again.body.existing_id).toBe(res.body.id);
  expect(await balance(poor.id)).toBe(2);
});

describe('cancel', () => {
  test('DELETE on a running run → 204, canceled within seconds, request aborted, credits released', async () => {
    const before = await balance();
    const run = await runAgent(providerFlow({ url: provider.url('/slow'), cost: 1 }), 7);
    await pollRun(stack.gw, org.apiKey, `/runs/${run.id}`, (r) => r.current_node === 'generic_provider');
    await new Promise((r) => setTimeout(r, 200));
    const aborted = provider.abortedSlow;
    const del = await request(stack.gw.app).delete(`/runs/${run.id}`).set('X-Api-Key', org.apiKey);
    expect(del.status).toBe(204);
    const done = await pollRun(stack.gw, org.apiKey, `/runs/${run.id}`, (r) => r.status !== 'in_progress', 3000);
    expect(done).toMatchObject({ status: 'canceled', cost: 0 });
    expect(done.current_node).toBeUndefined();
    await pollRun(stack.gw, org.apiKey, `/runs/${run.id}`, () => provider.abortedSlow > aborted, 3000);
    expect(await balance()).toBe(before);
  });

  test('DELETE on an ended run → 409 and nothing changes; unknown run → 404', async () => {
    const run = await runAgent(providerFlow({ url: provider.url('/ok') }));
    const done = await pollRun(stack.gw, org.apiKey, `/runs/${run.id}`);
    const del = await request(stack.gw.app).delete(`/runs/${run.id}`).set('X-Api-Key', org.apiKey);
    expect(del.status).toBe(409);
    expect(del.body.detail).toMatch(/already ended/);
    const after = await request(stack.gw.app).get(`/runs/${run.id}`).set('X-Api-Key', org.apiKey);
    expect(after.body).toEqual(done);
    const other = await stack.gw.createOrg('Other');
    expect((await request(stack.gw.app).delete(`/runs/${run.id}`).set('X-Api-Key', other.apiKey)).status).toBe(404);
    expect((await request(stack.gw.app).delete(`/app-runs/${run.id}`).set('X-Api-Key', org.apiKey)).status).toBe(404);
  });
});
