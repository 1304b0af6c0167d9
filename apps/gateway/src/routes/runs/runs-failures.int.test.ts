import type { Flow } from '@weft/contracts';
import { waitFor } from '@weft/testing';
import request from 'supertest';
import { balanceOf } from '../../testing/balance';
import { postAgent } from '../../testing/catalog-fixtures';
import { runInvariantViolations } from '../../testing/invariants';
import { startFakeProvider, type FakeProvider } from '../../testing/fake-provider';
import { TEST_ADMIN_TOKEN } from '../../testing/test-gateway';
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

const balance = (orgId = org.id) => balanceOf(stack.gw.deps.db, orgId);

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

test('destinations on metadata or private addresses are refused, redirects and IPv6 forms included', async () => {
  for (const url of [
    'http://169.254.169.254/latest',
    'http://10.1.2.3/x',
    provider.url('/redirect-to-metadata'),
    'http://[::169.254.169.254]/latest',
    'http://[64:ff9b::a01:203]/x',
  ]) {
    const run = await runAgent(providerFlow({ url }));
    const done = await pollRun(stack.gw, org.apiKey, `/runs/${run.id}`);
    expect(done).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
    expect(done.error).toMatch(/refused destination/);
  }
});

test('a node type no provider adapter serves fails with provider_auth_required saying so', async () => {
  const run = await runAgent({
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'write', type: 'llm', inputs: { prompt: 'topic' } },
    ],
    outputs: [{ id: 'write', type: 'text', description: '' }],
  });
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${run.id}`);
  expect(done).toMatchObject({ status: 'failed', failure_reason: 'provider_auth_required' });
  expect(done.error).toBe("Node 'write' (llm) is served by a provider adapter, not configured in this deployment");
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

describe('credits a run gives back (pending until the next reservation, ADR 0011)', () => {
  const textFlow = (): Flow => ({
    nodes: [{ id: 'topic', type: 'text_input' }],
    outputs: [{ id: 'topic', type: 'text', description: 'The topic' }],
  });
  const pending = (orgId: string) =>
    stack.gw.deps.db.prisma.pendingCredit.findMany({ where: { organizationId: orgId }, select: { amount: true } });
  const create = (apiKey: string, agentId: string) =>
    request(stack.gw.app)
      .post('/runs')
      .set('X-Api-Key', apiKey)
      .send({ agent_id: agentId, inputs: [{ id: 'topic', value: 'x' }] });

  test('pay for the next run at once: a balance spent on one run is whole again when it ends', async () => {
    const exact = await stack.gw.createOrg('Exact', 5);
    const agent = await postAgent(stack.gw.app, exact.apiKey, { flow: textFlow(), estimated_cost: 5 });
    const first = await create(exact.apiKey, agent.id);
    expect(first.body.status).toBe('in_progress');
    expect(await pollRun(stack.gw, exact.apiKey, `/runs/${first.body.id}`)).toMatchObject({ status: 'completed' });
    // The reservation came back as a pending row; the organization's row still holds 0.
    expect(await pending(exact.id)).toEqual([{ amount: 5 }]);
    expect(await balance(exact.id)).toBe(5);

    const second = await create(exact.apiKey, agent.id);
    expect(second.body).toMatchObject({ status: 'in_progress' });
    expect(await pending(exact.id)).toEqual([]);
    expect(await pollRun(stack.gw, exact.apiKey, `/runs/${second.body.id}`)).toMatchObject({ status: 'completed' });
    expect(await balance(exact.id)).toBe(5);
  });

  test('a reservation refused for want of credits leaves what was given back pending', async () => {
    const short = await stack.gw.createOrg('Short', 5);
    const cheap = await postAgent(stack.gw.app, short.apiKey, { flow: textFlow(), estimated_cost: 5 });
    const dear = await postAgent(stack.gw.app, short.apiKey, { flow: textFlow(), estimated_cost: 6 });
    const first = await create(short.apiKey, cheap.id);
    await pollRun(stack.gw, short.apiKey, `/runs/${first.body.id}`);
    const refused = await create(short.apiKey, dear.id);
    expect(refused.body).toMatchObject({ status: 'failed', failure_reason: 'insufficient_credits' });
    expect(await pending(short.id)).toEqual([{ amount: 5 }]);
    expect(await balance(short.id)).toBe(5);
  });

  test('concurrent creates and settlements: never more reserved than there is, every credit accounted for', async () => {
    const busy = await stack.gw.createOrg('Busy', 9);
    const agent = await postAgent(stack.gw.app, busy.apiKey, { flow: textFlow(), estimated_cost: 3 });
    const created: { id: string; status: string; failure_reason?: string }[] = [];
    // Waves overlapping the settlements of the previous ones: reservations race each other and the give-backs.
    for (let wave = 0; wave < 4; wave++) {
      const answers = await Promise.all(Array.from({ length: 15 }, () => create(busy.apiKey, agent.id)));
      created.push(...answers.map((a) => a.body as (typeof created)[number]));
      await new Promise((r) => setTimeout(r, 30));
    }
    const funded = created.filter((r) => r.status === 'in_progress');
    expect(funded.length).toBeGreaterThanOrEqual(3);
    expect(created.filter((r) => r.status !== 'in_progress').map((r) => r.failure_reason)).toEqual(
      created.filter((r) => r.status !== 'in_progress').map(() => 'insufficient_credits'),
    );
    for (const run of funded) await pollRun(stack.gw, busy.apiKey, `/runs/${run.id}`);
    expect(await balance(busy.id)).toBe(9);
    expect(await runInvariantViolations(stack.gw.deps.db)).toEqual([]);
  });

  test('an admin adjustment applies what is pending and answers the whole balance', async () => {
    const owner = await stack.gw.createOrg('Adjusted', 4);
    const agent = await postAgent(stack.gw.app, owner.apiKey, { flow: textFlow(), estimated_cost: 4 });
    const run = await create(owner.apiKey, agent.id);
    await pollRun(stack.gw, owner.apiKey, `/runs/${run.body.id}`);
    // The organization's row holds 0: a removal of 3 is refused only if what is pending were forgotten.
    const res = await request(stack.gw.app)
      .post(`/admin/organizations/${owner.id}/credits`)
      .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
      .send({ delta: -3 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ credits: 1 });
    expect(await pending(owner.id)).toEqual([]);
    expect(await balance(owner.id)).toBe(1);
  });
});

describe('cancel', () => {
  test('DELETE on a running run → 204, canceled within seconds, request aborted, credits released', async () => {
    const before = await balance();
    const slowCalls = () => provider.received.filter((r) => r.path === '/slow').length;
    const calledBefore = slowCalls();
    const run = await runAgent(providerFlow({ url: provider.url('/slow'), cost: 1 }), 7);
    // Canceled once its provider call is in flight, so that the call is what gets aborted.
    await waitFor('the provider call in flight', () => slowCalls() > calledBefore);
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
