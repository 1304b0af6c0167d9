import type { Flow } from '@weft/contracts';
import request from 'supertest';
import { balanceOf } from '../../testing/balance';
import { postAgent } from '../../testing/catalog-fixtures';
import { startFakeProvider, type FakeProvider } from '../../testing/fake-provider';
import { pollRun, startRunStack, type RunStack } from '../../testing/test-runs';

// Values a node completion cannot be recorded with, and numbers past their
// bounds in flows stored before the bounds existed, with a real worker: the
// run ends at once with a reason, the provider is called at most once, and
// nothing is retried in the queue for minutes.

let stack: RunStack;
let provider: FakeProvider;
let org: { id: string; apiKey: string };

beforeAll(async () => {
  [stack, provider] = await Promise.all([startRunStack(), startFakeProvider()]);
  org = await stack.gw.createOrg('Out of bounds', 100);
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

/** An agent whose active flow has `params` on its provider node, written as a flow stored before they were refused. */
async function storedAgent(params: Record<string, unknown>, estimated = 0) {
  const agent = await postAgent(stack.gw.app, org.apiKey, {
    flow: providerFlow({ url: 'http://127.0.0.1:9/placeholder' }),
    estimated_cost: estimated,
  });
  const { db } = stack.gw.deps;
  const { activeVersionId } = await db.prisma.agent.findUniqueOrThrow({ where: { id: agent.id } });
  await db.prisma.agentVersion.update({
    where: { id: activeVersionId! },
    data: { flow: providerFlow(params) as object },
  });
  return agent.id;
}

async function run(agentId: string) {
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agentId, inputs: [{ id: 'topic', value: 'cats' }] });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

const calls = (path: string) => provider.received.filter((r) => r.path === path).length;

test('a provider answer the database cannot store fails the node at once, with the provider called once', async () => {
  const before = await balanceOf(stack.gw.deps.db, org.id);
  const agent = await postAgent(stack.gw.app, org.apiKey, {
    flow: providerFlow({ url: provider.url('/lone-surrogate'), cost: 2 }),
    estimated_cost: 3,
  });
  const started = await run(agent.id);
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${started.id}`);
  expect(done).toMatchObject({ status: 'failed', failure_reason: 'invalid_input', cost: 0 });
  expect(done.error).toMatch(/^Node 'call' finished, but its result could not be recorded: .*surrogate/);
  expect(calls('/lone-surrogate')).toBe(1);
  expect(await balanceOf(stack.gw.deps.db, org.id)).toBe(before);
  const nodes = await stack.gw.deps.db.prisma.nodeExecution.findMany({ where: { runId: started.id } });
  expect(nodes.find((n) => n.nodeId === 'call')).toMatchObject({ status: 'failed', attempt: 0 });
});

test('a stored flow with a cost past an integer fails the node before calling the provider', async () => {
  const agentId = await storedAgent({ url: provider.url('/ok'), cost: 3_000_000_000 });
  const started = await run(agentId);
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${started.id}`);
  expect(done).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
  expect(done.error).toMatch(/params\.cost: cost must be a whole number of credits from 0 to 2147483647/);
  expect(calls('/ok')).toBe(0);
});

test.each([5_000_000_000, 1e300, 3_000_000_000])(
  'a stored flow with timeout_ms %d waits at most its type maximum and completes',
  async (timeoutMs) => {
    const agentId = await storedAgent({ url: provider.url('/delay?ms=50'), timeout_ms: timeoutMs });
    const started = await run(agentId);
    const done = await pollRun(stack.gw, org.apiKey, `/runs/${started.id}`);
    expect(done).toMatchObject({ status: 'completed', results: [expect.objectContaining({ value: 'late' })] });
  },
);
