import type { Flow } from '@weft/contracts';
import { executeNodeJobId, RUN_QUEUES, type ExecuteNodeJob } from '@weft/queue';
import { deleteRedisKeys } from '@weft/testing';
import { UnrecoverableError, Worker } from 'bullmq';
import { agentRun, createOrganization, publishAgent } from '../testing/catalog-rows';
import { startEngineTestStack, type EngineTestStack } from '../testing/engine-test-stack';
import { startProviderDouble, type ProviderDouble } from '../testing/provider-double';
import { jobIds, queuedJobIds, takeJob } from '../testing/queued-jobs';
import { storedNodes, storedRun } from '../testing/stored-rows';

// The reconciler: PostgreSQL says which nodes are dispatched, and a run that
// has stopped moving gets back the jobs Redis lost; a job that failed for good
// ends its run; a run waiting for a person is left alone.

let stack: EngineTestStack;
let provider: ProviderDouble;

beforeAll(async () => {
  [stack, provider] = await Promise.all([startEngineTestStack(), startProviderDouble()]);
});
afterAll(async () => {
  await stack.close();
  await provider.close();
});
// Each test sees only its own runs: the reconciler looks at the whole database.
afterEach(async () => {
  const { rows } = await stack.db.pool.query<{ id: string; organization_id: string; kind: 'agent' | 'app' }>(
    `SELECT id, organization_id, kind FROM runs WHERE status = 'in_progress'`,
  );
  for (const run of rows) await stack.engine.cancelRun(run.organization_id, run.id, run.kind);
});

const STALE_MS = 60_000;

/** The run has not moved for longer than STALE_MS: what the reconciler waits for, without waiting. */
async function makeStale(runId: string): Promise<void> {
  await stack.db.pool.query(`UPDATE runs SET updated_at = now() - interval '1 hour' WHERE id = $1`, [runId]);
}

const askFlow = (): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'ask', type: 'generic_provider', params: { url: provider.url('/echo') }, inputs: { prompt: 'topic' } },
  ],
  outputs: [{ id: 'ask', type: 'text', description: 'Answer' }],
});

async function startRun(flow: Flow): Promise<{ org: string; runId: string }> {
  const org = await createOrganization(stack.db, 100);
  const agent = await publishAgent(stack.db, org, flow);
  const { id: runId } = await stack.engine.startRun(agentRun(agent, [{ id: 'topic', value: 'tea' }]));
  return { org, runId };
}

test('a dispatched node whose job vanished is enqueued again, with the same job id, once its run is stale', async () => {
  const { runId } = await startRun(askFlow());
  await stack.engine.executeNode(await takeJob(stack.queues, runId, 'topic'));
  const [askJobId] = jobIds(runId, [{ nodeId: 'ask' }]);
  await stack.queues.light.remove(askJobId!);

  expect(await stack.engine.reconcile(STALE_MS)).toEqual({ requeued: 0, failed: 0 });
  expect(await queuedJobIds(stack.queues.light, runId)).toEqual([]);

  await makeStale(runId);
  expect(await stack.engine.reconcile(STALE_MS)).toEqual({ requeued: 1, failed: 0 });
  expect(await queuedJobIds(stack.queues.light, runId)).toEqual([askJobId]);
  // Its job is back: the next pass leaves it be.
  expect(await stack.engine.reconcile(STALE_MS)).toEqual({ requeued: 0, failed: 0 });
  expect(await queuedJobIds(stack.queues.light, runId)).toEqual([askJobId]);

  await stack.engine.executeNode(await takeJob(stack.queues, runId, 'ask'));
  expect(await storedRun(stack.db, runId)).toMatchObject({ status: 'completed' });
});

test("after the queues' keys are flushed, the runs' dispatched nodes get their jobs back", async () => {
  const first = await startRun(askFlow());
  const second = await startRun(askFlow());
  await stack.engine.executeNode(await takeJob(stack.queues, second.runId, 'topic'));
  expect(await deleteRedisKeys(stack.redis, `${stack.env.redisPrefix}:`)).toBeGreaterThan(0);
  await Promise.all([makeStale(first.runId), makeStale(second.runId)]);

  expect(await stack.engine.reconcile(STALE_MS)).toEqual({ requeued: 2, failed: 0 });

  expect(await queuedJobIds(stack.queues.light, first.runId)).toEqual(jobIds(first.runId, [{ nodeId: 'topic' }]));
  expect(await queuedJobIds(stack.queues.light, second.runId)).toEqual(jobIds(second.runId, [{ nodeId: 'ask' }]));
});

test('a dispatched node whose job failed for good ends its run failed', async () => {
  const { runId } = await startRun(askFlow());
  await stack.engine.executeNode(await takeJob(stack.queues, runId, 'topic'));
  // A worker takes the job and it fails past its retries.
  const worker = new Worker<ExecuteNodeJob>(RUN_QUEUES.light, null, {
    connection: stack.redis,
    prefix: stack.env.redisPrefix,
    autorun: false,
  });
  try {
    const job = await worker.getNextJob('test-token', { block: false });
    expect(job?.id).toBe(executeNodeJobId({ runId, nodeId: 'ask', attempt: 0 }));
    await job!.moveToFailed(new UnrecoverableError('poisoned payload'), 'test-token');
  } finally {
    await worker.close();
  }
  await makeStale(runId);

  expect(await stack.engine.reconcile(STALE_MS)).toEqual({ requeued: 0, failed: 1 });

  const error = "Node 'ask' could not be executed";
  expect(await storedRun(stack.db, runId)).toMatchObject({ status: 'failed', failure_reason: 'unknown', error });
  expect((await storedNodes(stack.db, runId))['ask']).toMatchObject({ status: 'failed', error });
});

test('a run parked on a review is left alone', async () => {
  const { runId } = await startRun({
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'check', type: 'human_review', inputs: { value: 'topic' } },
    ],
    outputs: [],
  });
  await stack.engine.executeNode(await takeJob(stack.queues, runId, 'topic'));
  const nodes = await storedNodes(stack.db, runId);
  await makeStale(runId);

  expect(await stack.engine.reconcile(STALE_MS)).toEqual({ requeued: 0, failed: 0 });

  expect(await queuedJobIds(stack.queues.light, runId)).toEqual([]);
  expect(await storedNodes(stack.db, runId)).toEqual(nodes);
  expect(await storedRun(stack.db, runId)).toMatchObject({ status: 'in_progress', awaiting_human_review: true });
});
