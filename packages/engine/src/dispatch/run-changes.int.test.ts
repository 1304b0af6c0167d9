import type { Flow } from '@weft/contracts';
import { createWorkerConnection } from '@weft/queue';
import { waitFor } from '@weft/testing';
import type { Redis } from 'ioredis';
import { listenForRunChanges, type RunChange } from '../index';
import { agentRun, createOrganization, publishAgent } from '../testing/catalog-rows';
import { startEngineTestStack, type EngineTestStack } from '../testing/engine-test-stack';
import { startProviderDouble, type ProviderDouble } from '../testing/provider-double';
import { takeJob } from '../testing/queued-jobs';
import { storedReviews, storedRun } from '../testing/stored-rows';

// What a run's event stream reads: every node row records the run version of
// its last change (node_executions.run_version), and every commit that changed
// runs announces their new versions on Redis.

let stack: EngineTestStack;
let provider: ProviderDouble;
let subscriber: Redis;
const announced: RunChange[] = [];

beforeAll(async () => {
  [stack, provider] = await Promise.all([startEngineTestStack(), startProviderDouble()]);
  subscriber = createWorkerConnection(stack.env.redisUrl);
  await listenForRunChanges(subscriber, stack.env.redisPrefix, (change) => announced.push(change));
});
afterAll(async () => {
  subscriber.disconnect();
  await stack.close();
  await provider.close();
});

/** The run version each node row was last changed at, and its status. */
async function nodeVersions(runId: string): Promise<Record<string, [string, number]>> {
  const { rows } = await stack.db.pool.query<{ node_id: string; status: string; run_version: number }>(
    'SELECT node_id, status, run_version FROM node_executions WHERE run_id = $1',
    [runId],
  );
  return Object.fromEntries(rows.map((r) => [r.node_id, [r.status, r.run_version]]));
}

/** Waits for the announcement of `runId` at `version`. */
const announcedAt = (runId: string, version: number) =>
  waitFor(`run ${runId} announced at version ${version}`, () =>
    announced.some((c) => c.id === runId && c.version === version) ? true : undefined,
  );

async function startRun(flow: Flow) {
  const org = await createOrganization(stack.db, 100);
  const agent = await publishAgent(stack.db, org, flow);
  const { id: runId } = await stack.engine.startRun(agentRun(agent, [{ id: 'topic', value: 'tea' }]));
  return { org, runId };
}

test('node rows record the run version of their last change, and each commit announces it', async () => {
  const { org, runId } = await startRun({
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'ask', type: 'generic_provider', params: { url: provider.url('/takes') }, inputs: { prompt: 'topic' } },
      { id: 'check', type: 'human_review', inputs: { value: 'ask' } },
      { id: 'after', type: 'generic_provider', params: { url: provider.url('/echo') }, inputs: { prompt: 'check' } },
    ],
    outputs: [],
  });
  // Created at version 0, roots already dispatched.
  expect((await storedRun(stack.db, runId)).version).toBe(0);
  expect(await nodeVersions(runId)).toEqual({
    topic: ['running', 0],
    ask: ['pending', 0],
    check: ['pending', 0],
    after: ['pending', 0],
  });

  // A node completion (one statement): the node settled and the node dispatched record the new version.
  await stack.engine.executeNode(await takeJob(stack.queues, runId, 'topic'));
  expect((await storedRun(stack.db, runId)).version).toBe(1);
  expect(await nodeVersions(runId)).toEqual({
    topic: ['completed', 1],
    ask: ['running', 1],
    check: ['pending', 0],
    after: ['pending', 0],
  });
  await announcedAt(runId, 1);

  // The review node, an instant node, settles in the same commit as the node that fed it.
  await stack.engine.executeNode(await takeJob(stack.queues, runId, 'ask'));
  expect(await nodeVersions(runId)).toEqual({
    topic: ['completed', 1],
    ask: ['completed', 2],
    check: ['waiting_review', 2],
    after: ['pending', 0],
  });
  await announcedAt(runId, 2);

  // A decision under the run's lock: the lock moves the run to 3 (the review node approved),
  // its commit to 4 (what it dispatched); the announcement carries the version committed.
  const [review] = await storedReviews(stack.db, runId);
  await stack.engine.decideReview(org, runId, review!.id, { decision: 'approve', output: { prompts: ['ok'] } });
  expect((await storedRun(stack.db, runId)).version).toBe(4);
  expect(await nodeVersions(runId)).toEqual({
    topic: ['completed', 1],
    ask: ['completed', 2],
    check: ['completed', 3],
    after: ['running', 4],
  });
  await announcedAt(runId, 4);

  await stack.engine.cancelRun(org, runId, 'agent');
  expect((await storedRun(stack.db, runId)).version).toBe(5);
  expect((await nodeVersions(runId)).after).toEqual(['canceled', 5]);
  await announcedAt(runId, 5);
});

test("a node's failure records the version its run ended at, and announces it", async () => {
  const { runId } = await startRun({
    nodes: [
      { id: 'topic', type: 'text_input' },
      // The provider double answers 404 to a path it does not serve: the node fails for good.
      {
        id: 'ask',
        type: 'generic_provider',
        params: { url: `${provider.url('/echo')}/missing` },
        inputs: { prompt: 'topic' },
      },
      { id: 'after', type: 'prompt_concatenate', inputs: { parts: ['ask'] } },
    ],
    outputs: [],
  });
  await stack.engine.executeNode(await takeJob(stack.queues, runId, 'topic'));
  await stack.engine.executeNode(await takeJob(stack.queues, runId, 'ask'));
  const run = await storedRun(stack.db, runId);
  expect(run).toMatchObject({ status: 'failed', version: 2 });
  expect(await nodeVersions(runId)).toEqual({
    topic: ['completed', 1],
    ask: ['failed', 2],
    after: ['canceled', 2],
  });
  await announcedAt(runId, 2);
});

test('a commit that does not apply changes no node row and announces nothing', async () => {
  const { org, runId } = await startRun({
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'ask', type: 'generic_provider', params: { url: provider.url('/echo') }, inputs: { prompt: 'topic' } },
    ],
    outputs: [],
  });
  const job = await takeJob(stack.queues, runId, 'topic');
  await stack.engine.cancelRun(org, runId, 'agent');
  await announcedAt(runId, 1);
  // The canceled node's job comes late: nothing is committed.
  expect(await stack.engine.executeNode(job)).toEqual({ settled: [], enqueued: [] });
  expect((await storedRun(stack.db, runId)).version).toBe(1);
  expect(await nodeVersions(runId)).toEqual({ topic: ['canceled', 1], ask: ['canceled', 1] });
  // Announcements arrive in order on one connection: a later run's shows nothing came in between.
  const { runId: later } = await startRun({ nodes: [{ id: 'topic', type: 'text_input' }], outputs: [] });
  await stack.engine.executeNode(await takeJob(stack.queues, later, 'topic'));
  await announcedAt(later, 1);
  expect(announced.filter((c) => c.id === runId).map((c) => c.version)).toEqual([1]);
});
