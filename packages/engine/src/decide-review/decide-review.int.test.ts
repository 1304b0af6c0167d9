import type { Flow } from '@weft/contracts';
import { ConflictError, NotFoundError, ValidationError } from '@weft/errors';
import { agentRun, createOrganization, publishAgent, type PublishedAgent } from '../testing/catalog-rows';
import { startEngineTestStack, type EngineTestStack } from '../testing/engine-test-stack';
import { startProviderDouble, type ProviderDouble } from '../testing/provider-double';
import { jobIds, queuedJobIds, takeJob } from '../testing/queued-jobs';
import { storedNodes, storedReviews, storedRun, type StoredReview } from '../testing/stored-rows';

// Deciding a review: approve completes the review node with exactly the
// reviewer's output and the run goes on; retry re-runs what can change
// upstream at its next attempt and proposes anew; a review is decided once,
// only by its run's organization, and only with assets that organization can read.

let stack: EngineTestStack;
let provider: ProviderDouble;

beforeAll(async () => {
  [stack, provider] = await Promise.all([startEngineTestStack(), startProviderDouble()]);
});
afterAll(async () => {
  await stack.close();
  await provider.close();
});

/** topic → ask (a new answer on every call) → check (review) → after (instant, of check and topic). */
const reviewedAnswer = (url: string): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'ask', type: 'generic_provider', params: { url }, inputs: { prompt: 'topic' } },
    { id: 'check', type: 'human_review', inputs: { value: 'ask' } },
    { id: 'after', type: 'prompt_concatenate', params: { separator: '+' }, inputs: { parts: ['check', 'topic'] } },
  ],
  outputs: [{ id: 'after', type: 'text', description: 'Approved answer and topic' }],
});

interface Parked {
  agent: PublishedAgent;
  runId: string;
  review: StoredReview;
}

/** A run of reviewedAnswer executed up to its review. */
async function parkOnReview(): Promise<Parked> {
  const org = await createOrganization(stack.db, 100);
  const agent = await publishAgent(stack.db, org, reviewedAnswer(provider.url('/takes')));
  const { id: runId } = await stack.engine.startRun(agentRun(agent, [{ id: 'topic', value: 'tea' }]));
  await stack.engine.executeNode(await takeJob(stack.queues, runId, 'topic'));
  expect(await stack.engine.executeNode(await takeJob(stack.queues, runId, 'ask'))).toEqual({
    settled: ['ask', 'check'],
    enqueued: [],
  });
  const [review] = await storedReviews(stack.db, runId);
  expect(review).toMatchObject({ node_id: 'check', status: 'pending', proposed_output: { prompts: ['take 1'] } });
  expect(await storedRun(stack.db, runId)).toMatchObject({ status: 'in_progress', awaiting_human_review: true });
  return { agent, runId, review: review! };
}

test('approve with an edited output completes the review node with exactly that output, and the run goes on', async () => {
  const { agent, runId, review } = await parkOnReview();

  await stack.engine.decideReview(agent.organizationId, runId, review.id, {
    decision: 'approve',
    output: { prompts: ['milk first'] },
  });

  expect(await storedReviews(stack.db, runId)).toEqual([
    { ...review, status: 'approved', output: { prompts: ['milk first'] } },
  ]);
  const nodes = await storedNodes(stack.db, runId);
  expect(nodes['check']).toMatchObject({ status: 'completed', output: { type: 'text', value: 'milk first' } });
  expect(nodes['after']!.status).toBe('running');
  expect(await storedRun(stack.db, runId)).toMatchObject({ awaiting_human_review: false });
  expect(await queuedJobIds(stack.queues.light, runId)).toEqual(jobIds(runId, [{ nodeId: 'after' }]));

  await stack.engine.executeNode(await takeJob(stack.queues, runId, 'after'));

  expect(await storedRun(stack.db, runId)).toMatchObject({
    status: 'completed',
    results: [{ id: 'after', type: 'text', value: 'milk first+tea', description: 'Approved answer and topic' }],
  });
});

test('retry re-runs the node upstream at its next attempt, and the review proposes its new answer', async () => {
  const { agent, runId, review } = await parkOnReview();

  await stack.engine.decideReview(agent.organizationId, runId, review.id, { decision: 'retry' });

  expect((await storedReviews(stack.db, runId)).map((r) => r.status)).toEqual(['retried']);
  const nodes = await storedNodes(stack.db, runId);
  expect(nodes['topic']).toMatchObject({ status: 'completed', attempt: 0 });
  expect(nodes['ask']).toMatchObject({ status: 'running', attempt: 1, output: null });
  expect(nodes['check']).toMatchObject({ status: 'pending', attempt: 1, output: null });
  expect(nodes['after']).toMatchObject({ status: 'pending', attempt: 0 });
  expect(await storedRun(stack.db, runId)).toMatchObject({ status: 'in_progress', awaiting_human_review: false });
  expect(await queuedJobIds(stack.queues.light, runId)).toEqual(jobIds(runId, [{ nodeId: 'ask', attempt: 1 }]));

  expect(await stack.engine.executeNode(await takeJob(stack.queues, runId, 'ask', 1))).toEqual({
    settled: ['ask', 'check'],
    enqueued: [],
  });

  const [first, second] = await storedReviews(stack.db, runId);
  expect(first).toMatchObject({ id: review.id, status: 'retried' });
  expect(second).toMatchObject({ node_id: 'check', status: 'pending', proposed_output: { prompts: ['take 2'] } });
  expect(second!.id).not.toBe(review.id);
  expect(await storedRun(stack.db, runId)).toMatchObject({ awaiting_human_review: true });
});

test('a review is decided once: a second decision is a conflict and changes nothing', async () => {
  const { agent, runId, review } = await parkOnReview();
  const decide = (decision: 'approve' | 'retry', prompt: string) =>
    stack.engine.decideReview(agent.organizationId, runId, review.id, { decision, output: { prompts: [prompt] } });
  await decide('approve', 'first');
  const nodes = await storedNodes(stack.db, runId);

  await expect(decide('approve', 'second')).rejects.toBeInstanceOf(ConflictError);
  await expect(decide('retry', 'second')).rejects.toBeInstanceOf(ConflictError);

  expect(await storedReviews(stack.db, runId)).toEqual([
    { ...review, status: 'approved', output: { prompts: ['first'] } },
  ]);
  expect(await storedNodes(stack.db, runId)).toEqual(nodes);
});

test("another organization's run, or a review the run does not have, is not found", async () => {
  const { agent, runId, review } = await parkOnReview();
  const stranger = await createOrganization(stack.db, 100);
  const approve = { decision: 'approve' as const, output: { prompts: ['mine now'] } };

  await expect(stack.engine.decideReview(stranger, runId, review.id, approve)).rejects.toBeInstanceOf(NotFoundError);
  await expect(
    stack.engine.decideReview(agent.organizationId, runId, '00000000-0000-4000-8000-000000000000', approve),
  ).rejects.toBeInstanceOf(NotFoundError);

  expect(await storedReviews(stack.db, runId)).toEqual([review]);
  expect(await storedRun(stack.db, runId)).toMatchObject({ status: 'in_progress', awaiting_human_review: true });
});

test('an approval naming an asset its organization cannot read is refused; one it can read completes the review', async () => {
  const org = await createOrganization(stack.db, 100);
  const stranger = await createOrganization(stack.db, 100);
  const image = (organizationId: string) =>
    stack.db.prisma.asset.create({
      data: {
        organizationId,
        assetType: 'reference',
        mediaType: 'image',
        mediaExtension: 'png',
        contentType: 'image/png',
        storageKey: `${organizationId}/picture.png`,
      },
    });
  const [own, theirs] = await Promise.all([image(org), image(stranger)]);
  const agent = await publishAgent(stack.db, org, {
    nodes: [
      { id: 'picture', type: 'image_input' },
      { id: 'check', type: 'human_review', inputs: { value: 'picture' } },
    ],
    outputs: [{ id: 'check', type: 'images', description: 'Approved picture' }],
  });
  const { id: runId } = await stack.engine.startRun(
    agentRun(agent, [{ id: 'picture', value: { asset_ids: [own.id] } }]),
  );
  await stack.engine.executeNode(await takeJob(stack.queues, runId, 'picture'));
  const [review] = await storedReviews(stack.db, runId);
  expect(review!.proposed_output).toEqual({ asset_ids: [own.id] });

  const refused = stack.engine.decideReview(org, runId, review!.id, {
    decision: 'approve',
    output: { asset_ids: [theirs.id] },
  });

  await expect(refused).rejects.toBeInstanceOf(ValidationError);
  await expect(refused).rejects.toMatchObject({
    issues: [{ loc: ['body', 'output', 'asset_ids', 0], type: 'not_found', input: theirs.id }],
  });
  expect(await storedReviews(stack.db, runId)).toEqual([review]);

  await stack.engine.decideReview(org, runId, review!.id, { decision: 'approve', output: { asset_ids: [own.id] } });

  expect(await storedRun(stack.db, runId)).toMatchObject({
    status: 'completed',
    results: [{ id: 'check', type: 'images', value: [own.id], description: 'Approved picture' }],
  });
});
