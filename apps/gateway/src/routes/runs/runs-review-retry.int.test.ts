import type { Flow } from '@weft/contracts';
import request from 'supertest';
import { postAgent } from '../../testing/catalog-fixtures';
import { startFakeProvider, type FakeProvider } from '../../testing/fake-provider';
import { pollRun, startRunStack, type RunBody, type RunStack } from '../../testing/test-runs';

// Review retry: the path back to the nearest provider nodes runs again, and
// the review proposes what they answer this time.

let stack: RunStack;
let provider: FakeProvider;
let apiKey: string;

beforeAll(async () => {
  provider = await startFakeProvider();
  stack = await startRunStack();
  ({ apiKey } = await stack.gw.createOrg('Retrier', 100));
});
afterAll(async () => {
  await stack.close();
  await provider.close();
});

interface Review {
  id: string;
  node_id: string;
  proposed_output: { prompts?: string[] };
}

const takes = (nodeId: string, cost = 0) => ({
  id: nodeId,
  type: 'generic_provider' as const,
  params: { url: provider.url('/takes'), cost },
  inputs: { prompt: 'topic' },
});

async function startParked(flow: Flow, estimatedCost = 0) {
  const agent = await postAgent(stack.gw.app, apiKey, { flow, estimated_cost: estimatedCost });
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: 'cats' }] });
  expect(res.status).toBe(201);
  return pollRun(stack.gw, apiKey, `/runs/${res.body.id}`, (r) => r.awaiting_human_review === true);
}

const decide = (run: RunBody, reviewId: string, body: object) =>
  request(stack.gw.app).post(`/runs/${run.id}/reviews/${reviewId}`).set('X-Api-Key', apiKey).send(body);

/** Retries the run's one pending review and waits for the review that replaces it. */
async function retryReview(run: RunBody): Promise<{ before: Review; after: Review }> {
  const before = (run.pending_reviews as Review[])[0]!;
  expect((await decide(run, before.id, { decision: 'retry' })).status).toBe(204);
  const reparked = await pollRun(
    stack.gw,
    apiKey,
    `/runs/${run.id}`,
    (r) => r.awaiting_human_review === true && (r.pending_reviews as Review[])[0]?.id !== before.id,
  );
  return { before, after: (reparked.pending_reviews as Review[])[0]! };
}

const callsOf = (runId: string, nodeId: string) =>
  provider.received.filter((r) => {
    const body = r.body as { run_id?: string; node_id?: string };
    return r.path === '/takes' && body.run_id === runId && body.node_id === nodeId;
  }).length;

async function attempts(runId: string): Promise<Record<string, number>> {
  const rows = await stack.gw.deps.db.prisma.nodeExecution.findMany({ where: { runId } });
  return Object.fromEntries(rows.map((n) => [n.nodeId, n.attempt]));
}

test('retry behind a text split asks the provider again and proposes its new answer', async () => {
  const flow: Flow = {
    nodes: [
      { id: 'topic', type: 'text_input' },
      takes('write', 1),
      { id: 'lines', type: 'text_split', inputs: { text: 'write' } },
      { id: 'check', type: 'human_review', inputs: { value: 'lines' } },
    ],
    outputs: [{ id: 'check', type: 'data', description: 'Approved lines' }],
  };
  const parked = await startParked(flow, 5);
  const { before, after } = await retryReview(parked);
  expect(before.proposed_output).toEqual({ prompts: ['write take 1 A', 'write take 1 B'] });
  expect(after).toMatchObject({ node_id: 'check', proposed_output: { prompts: ['write take 2 A', 'write take 2 B'] } });
  expect(callsOf(parked.id, 'write')).toBe(2);
  // Each node re-run has its next attempt, so its job id is a new one.
  expect(await attempts(parked.id)).toEqual({ topic: 0, write: 1, lines: 1, check: 1 });

  expect(
    (await decide(parked, after.id, { decision: 'approve', output: { prompts: ['write take 2 B'] } })).status,
  ).toBe(204);
  const done = await pollRun(stack.gw, apiKey, `/runs/${parked.id}`);
  expect(done).toMatchObject({ status: 'completed', results: [{ id: 'check', value: ['write take 2 B'] }] });
  // The provider answered twice and each answer is charged, as any re-run is (within the reservation).
  expect(done.cost).toBe(2);
});

test('retry re-runs two deterministic levels up to the provider, and not a branch that does not feed the review', async () => {
  const flow: Flow = {
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'tone', type: 'text_input', required: false, params: { default: 'dry' } },
      takes('write'),
      takes('side'),
      { id: 'join', type: 'prompt_concatenate', params: { separator: '\n' }, inputs: { parts: ['write', 'tone'] } },
      { id: 'lines', type: 'text_split', inputs: { text: 'join' } },
      { id: 'check', type: 'human_review', inputs: { value: 'lines' } },
      { id: 'after', type: 'prompt_concatenate', params: { separator: ' | ' }, inputs: { parts: ['check', 'side'] } },
    ],
    outputs: [{ id: 'after', type: 'text', description: 'Approved lines beside the side answer' }],
  };
  const parked = await startParked(flow);
  // The side branch runs on its own; the review parks once it has too, so the counts below are settled.
  await pollRun(stack.gw, apiKey, `/runs/${parked.id}`, () => callsOf(parked.id, 'side') === 1);
  const { before, after } = await retryReview(parked);
  expect(before.proposed_output).toEqual({ prompts: ['write take 1 A', 'write take 1 B', 'dry'] });
  expect(after.proposed_output).toEqual({ prompts: ['write take 2 A', 'write take 2 B', 'dry'] });
  expect(callsOf(parked.id, 'write')).toBe(2);
  expect(await attempts(parked.id)).toMatchObject({
    topic: 0,
    tone: 0,
    side: 0,
    write: 1,
    join: 1,
    lines: 1,
    check: 1,
  });

  expect((await decide(parked, after.id, { decision: 'approve', output: { prompts: ['kept'] } })).status).toBe(204);
  const done = await pollRun(stack.gw, apiKey, `/runs/${parked.id}`);
  expect(done.results).toEqual([
    {
      id: 'after',
      type: 'text',
      value: 'kept | side take 1 A\nside take 1 B',
      description: 'Approved lines beside the side answer',
    },
  ]);
  expect(callsOf(parked.id, 'side')).toBe(1);
});
