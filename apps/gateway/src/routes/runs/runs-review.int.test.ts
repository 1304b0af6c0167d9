import type { Flow } from '@weft/contracts';
import request from 'supertest';
import { postAgent, reviewFlow } from '../../testing/catalog-fixtures';
import { pollRun, startRunStack, type RunBody, type RunStack } from '../../testing/test-runs';

// Human review: park, approve with the reviewer's output, a retry with nothing upstream that can change,
// bad bodies, races. Retries that re-run provider nodes: runs-review-retry.int.test.ts.

let stack: RunStack;
let apiKey: string;

beforeAll(async () => {
  stack = await startRunStack();
  ({ apiKey } = await stack.gw.createOrg('Reviewer', 100));
});
afterAll(() => stack.close());

interface Review {
  id: string;
  node_id: string;
  proposed_output: { prompts?: string[]; asset_ids?: string[] };
}

async function startParked(flow: Flow = reviewFlow(), inputs = [{ id: 'topic', value: 'cats' }]) {
  const agent = await postAgent(stack.gw.app, apiKey, { flow });
  const res = await request(stack.gw.app).post('/runs').set('X-Api-Key', apiKey).send({ agent_id: agent.id, inputs });
  expect(res.status).toBe(201);
  return pollRun(stack.gw, apiKey, `/runs/${res.body.id}`, (r) => r.awaiting_human_review === true);
}

const decide = (run: RunBody, reviewId: string, body: object) =>
  request(stack.gw.app).post(`/runs/${run.id}/reviews/${reviewId}`).set('X-Api-Key', apiKey).send(body);

test('a review parks the run with the proposal; approve continues with exactly the given output', async () => {
  const parked = await startParked();
  expect(parked.status).toBe('in_progress');
  const reviews = parked.pending_reviews as Review[];
  expect(reviews).toEqual([
    { id: expect.any(String), node_id: 'check', proposed_output: { prompts: ['cats / friendly'] } },
  ]);
  expect(parked.progress).toBeCloseTo(0.75);
  // Parked means no job in progress: the run only waits in PostgreSQL.
  const queue = await stack.gw.deps.redis.keys(`${stack.gw.config.REDIS_PREFIX}:nodes-light:active*`);
  expect(queue.length === 0 || (await stack.gw.deps.redis.llen(queue[0]!)) === 0).toBe(true);

  const res = await decide(parked, reviews[0]!.id, { decision: 'approve', output: { prompts: ['dogs, edited'] } });
  expect(res.status).toBe(204);
  const done = await pollRun(stack.gw, apiKey, `/runs/${parked.id}`);
  expect(done).toMatchObject({ status: 'completed', awaiting_human_review: false, pending_reviews: [] });
  expect(done.results).toEqual([{ id: 'check', type: 'text', value: 'dogs, edited', description: 'Approved prompt' }]);

  const again = await decide(parked, reviews[0]!.id, { decision: 'approve', output: { prompts: ['x'] } });
  expect(again.status).toBe(409);
});

test('retry of a review fed only by run inputs and deterministic nodes re-runs the node upstream and parks again', async () => {
  const parked = await startParked();
  const first = (parked.pending_reviews as Review[])[0]!;
  expect((await decide(parked, first.id, { decision: 'retry', output: { ignored: true } })).status).toBe(204);
  const reparked = await pollRun(
    stack.gw,
    apiKey,
    `/runs/${parked.id}`,
    (r) => r.awaiting_human_review === true && (r.pending_reviews as Review[])[0]?.id !== first.id,
  );
  const second = (reparked.pending_reviews as Review[])[0]!;
  expect(second).toMatchObject({ node_id: 'check', proposed_output: { prompts: ['cats / friendly'] } });
  const nodes = await stack.gw.deps.db.prisma.nodeExecution.findMany({ where: { runId: parked.id, nodeId: 'join' } });
  expect(nodes[0]!.attempt).toBe(1);
  expect((await decide(reparked, second.id, { decision: 'approve', output: { prompts: ['ok'] } })).status).toBe(204);
  expect((await pollRun(stack.gw, apiKey, `/runs/${parked.id}`)).status).toBe('completed');
});

test('bad decision bodies are 422 and change nothing', async () => {
  const parked = await startParked();
  const review = (parked.pending_reviews as Review[])[0]!;
  const bad = [
    [{ decision: 'maybe' }, ['body', 'decision']],
    [{ decision: 'approve' }, ['body', 'output']],
    [{ decision: 'approve', output: { prompts: [] } }, ['body', 'output', 'prompts']],
    [{ decision: 'approve', output: { asset_ids: [] } }, ['body', 'output', 'asset_ids']],
    [{ decision: 'approve', output: { prompts: 'one' } }, ['body', 'output', 'prompts']],
    [{ decision: 'approve', output: { prompts: [1] } }, ['body', 'output', 'prompts', 0]],
  ] as const;
  for (const [body, loc] of bad) {
    const res = await decide(parked, review.id, body);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(loc);
  }
  const unknown = await decide(parked, '00000000-0000-4000-8000-000000000000', { decision: 'retry' });
  expect(unknown.status).toBe(404);
  const still = await request(stack.gw.app).get(`/runs/${parked.id}`).set('X-Api-Key', apiKey);
  expect(still.body.pending_reviews).toEqual([review]);
});

test('two concurrent approvals: exactly one wins and downstream runs once', async () => {
  const flow: Flow = {
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'check', type: 'human_review', inputs: { value: 'topic' } },
      { id: 'after', type: 'prompt_concatenate', params: { separator: '+' }, inputs: { parts: ['check', 'topic'] } },
    ],
    outputs: [{ id: 'after', type: 'text', description: '' }],
  };
  const parked = await startParked(flow);
  const review = (parked.pending_reviews as Review[])[0]!;
  const results = await Promise.all([
    decide(parked, review.id, { decision: 'approve', output: { prompts: ['A'] } }),
    decide(parked, review.id, { decision: 'approve', output: { prompts: ['B'] } }),
  ]);
  expect(results.map((r) => r.status).sort()).toEqual([204, 409]);
  const done = await pollRun(stack.gw, apiKey, `/runs/${parked.id}`);
  const winner = results[0]!.status === 204 ? 'A' : 'B';
  expect(done.results).toEqual([{ id: 'after', type: 'text', value: `${winner}+cats`, description: '' }]);
  const after = await stack.gw.deps.db.prisma.nodeExecution.findFirstOrThrow({
    where: { runId: parked.id, nodeId: 'after' },
  });
  expect(after.attempt).toBe(0);
});

test('parallel branches can wait on several reviews at once; a review survives cancel as canceled', async () => {
  const flow: Flow = {
    nodes: [
      { id: 'a', type: 'text_input' },
      { id: 'b', type: 'text_input', required: false, params: { default: 'bee' } },
      { id: 'ra', type: 'human_review', inputs: { value: 'a' } },
      { id: 'rb', type: 'human_review', inputs: { value: 'b' } },
    ],
    outputs: [],
  };
  const agent = await postAgent(stack.gw.app, apiKey, { flow });
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'a', value: 'ay' }] });
  const parked = await pollRun(
    stack.gw,
    apiKey,
    `/runs/${res.body.id}`,
    (r) => (r.pending_reviews as Review[]).length === 2,
  );
  expect((parked.pending_reviews as Review[]).map((r) => r.node_id).sort()).toEqual(['ra', 'rb']);
  expect((await request(stack.gw.app).delete(`/runs/${parked.id}`).set('X-Api-Key', apiKey)).status).toBe(204);
  const done = await pollRun(stack.gw, apiKey, `/runs/${parked.id}`);
  expect(done).toMatchObject({ status: 'canceled', awaiting_human_review: false, pending_reviews: [] });
  const review = (parked.pending_reviews as Review[])[0]!;
  expect((await decide(parked, review.id, { decision: 'approve', output: { prompts: ['x'] } })).status).toBe(409);
});
