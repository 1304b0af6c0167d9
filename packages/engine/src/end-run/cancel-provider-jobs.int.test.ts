import type { Flow } from '@weft/contracts';
import type { NodeRoutes, ProviderJobOwner, ProviderJobRef } from '@weft/nodes';
import { agentRun, createOrganization, publishAgent } from '../testing/catalog-rows';
import { startEngineTestStack, type EngineTestStack } from '../testing/engine-test-stack';
import { takeJob } from '../testing/queued-jobs';
import { providerJobs } from '../store/provider-jobs';
import { cancelRetryDelayMs, MAX_CANCEL_ATTEMPTS } from './cancel-provider-jobs';

// Which provider jobs an ended run leaves due for a cancel, and what the sweep
// does with them: cancels through the routes, retries with backoff, gives up.
// The routes stand in for the provider adapters (the worker-process test in
// apps/gateway/src/durability/provider-cancel-sweep.int.test.ts goes through
// the real Replicate adapter to a double of Replicate).

interface CancelCall {
  job: ProviderJobRef;
  owner: ProviderJobOwner;
}

let stack: EngineTestStack;
const calls: CancelCall[] = [];
/** What the next cancels do: take it, fail, or say this deployment cannot. */
let answer: 'take' | 'fail' | 'cannot' = 'take';

const routes: NodeRoutes = {
  routeFor: () => Promise.resolve({ missing: 'no provider in this test' }),
  cancelJob: (job, owner) => {
    calls.push({ job, owner });
    if (answer === 'fail') return Promise.reject(new Error('the provider answered 503'));
    return Promise.resolve(answer === 'take');
  },
};

beforeAll(async () => {
  stack = await startEngineTestStack({ nodeRoutes: routes });
});
afterAll(() => stack?.close());
beforeEach(() => {
  calls.length = 0;
  answer = 'take';
});

const flow: Flow = {
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'draw', type: 'image_generation', params: { credential_id: 'cred-1' }, inputs: { prompt: 'topic' } },
    { id: 'speak', type: 'text_to_speech', inputs: { text: 'topic' } },
  ],
  outputs: [],
};

interface JobRow {
  node_id: string;
  cancel_due_in_ms: number | null;
  cancel_attempts: number;
  canceled: boolean;
  cancel_error: string | null;
}

async function jobsOf(runId: string): Promise<JobRow[]> {
  const { rows } = await stack.db.pool.query<JobRow>(
    `SELECT node_id, cancel_attempts, canceled_at IS NOT NULL AS canceled, cancel_error,
            (EXTRACT(EPOCH FROM cancel_due_at - now()) * 1000)::int AS cancel_due_in_ms
       FROM provider_jobs WHERE run_id = $1 ORDER BY node_id`,
    [runId],
  );
  return rows;
}

/** The run's jobs due now: the grace left to the executing worker (or the backoff) has passed. */
const makeDue = (runId: string) =>
  stack.db.pool.query(
    'UPDATE provider_jobs SET cancel_due_at = now() WHERE run_id = $1 AND cancel_due_at IS NOT NULL',
    [runId],
  );

/** A run whose two provider nodes are dispatched, each with its job recorded at the provider. */
async function runWithTwoJobs() {
  const org = await createOrganization(stack.db, 50);
  const agent = await publishAgent(stack.db, org, flow, 10);
  const { id: runId } = await stack.engine.startRun(agentRun(agent, [{ id: 'topic', value: 'tea' }]));
  await stack.engine.executeNode(await takeJob(stack.queues, runId, 'topic'));
  const jobs = {
    draw: providerJobs(stack.db.pool, { runId, nodeId: 'draw', attempt: 0 }),
    speak: providerJobs(stack.db.pool, { runId, nodeId: 'speak', attempt: 0 }),
  };
  await jobs.draw.remember({ provider: 'replicate', id: `pred-${runId}` });
  await jobs.speak.remember({ provider: 'fal', id: `req-${runId}`, state: { app: 'fal-ai/tts' } });
  return { org, runId, jobs };
}

test('a cancelled run: its running nodes’ jobs are due after the grace, and the sweep cancels them once', async () => {
  const { org, runId, jobs } = await runWithTwoJobs();
  // The worker executing `speak` cancelled its job itself.
  await jobs.speak.canceled();
  await stack.engine.cancelRun(org, runId, 'agent');

  const [draw, speak] = await jobsOf(runId);
  expect(draw).toMatchObject({ canceled: false, cancel_attempts: 0 });
  // The executing worker gets its 10 s first.
  expect(draw!.cancel_due_in_ms).toBeGreaterThan(5_000);
  expect(speak).toMatchObject({ canceled: true, cancel_due_in_ms: null });
  expect(await stack.engine.cancelProviderJobs()).toEqual({ canceled: 0, retried: 0, givenUp: 0 });

  await makeDue(runId);
  expect(await stack.engine.cancelProviderJobs()).toEqual({ canceled: 1, retried: 0, givenUp: 0 });
  // With the credential its node names, for its organization.
  expect(calls).toEqual([
    { job: { provider: 'replicate', id: `pred-${runId}` }, owner: { organizationId: org, credentialId: 'cred-1' } },
  ]);
  expect((await jobsOf(runId))[0]).toMatchObject({ canceled: true, cancel_due_in_ms: null, cancel_attempts: 1 });
  expect(await stack.engine.cancelProviderJobs()).toEqual({ canceled: 0, retried: 0, givenUp: 0 });
});

test('a failing cancel is retried with backoff, then given up', async () => {
  const { org, runId } = await runWithTwoJobs();
  await stack.engine.cancelRun(org, runId, 'agent');
  await makeDue(runId);
  answer = 'fail';

  expect(await stack.engine.cancelProviderJobs()).toEqual({ canceled: 0, retried: 2, givenUp: 0 });
  const [draw] = await jobsOf(runId);
  expect(draw).toMatchObject({ canceled: false, cancel_attempts: 1, cancel_error: 'the provider answered 503' });
  expect(draw!.cancel_due_in_ms).toBeGreaterThan(0);
  expect(draw!.cancel_due_in_ms).toBeLessThanOrEqual(cancelRetryDelayMs(1));

  await stack.db.pool.query('UPDATE provider_jobs SET cancel_attempts = $2 - 1 WHERE run_id = $1', [
    runId,
    MAX_CANCEL_ATTEMPTS,
  ]);
  await makeDue(runId);
  expect(await stack.engine.cancelProviderJobs()).toEqual({ canceled: 0, retried: 0, givenUp: 2 });
  expect((await jobsOf(runId))[0]).toMatchObject({
    canceled: false,
    cancel_due_in_ms: null,
    cancel_error: 'the provider answered 503',
  });
});

test('a job no adapter of the deployment can cancel is given up at once', async () => {
  const { org, runId } = await runWithTwoJobs();
  await stack.engine.cancelRun(org, runId, 'agent');
  await makeDue(runId);
  answer = 'cannot';
  expect(await stack.engine.cancelProviderJobs()).toEqual({ canceled: 0, retried: 0, givenUp: 2 });
  expect((await jobsOf(runId))[0]).toMatchObject({
    canceled: false,
    cancel_due_in_ms: null,
    cancel_error: 'this deployment cannot cancel replicate jobs',
  });
});

test('a job recorded after its run ended is due; a completed attempt’s is not', async () => {
  const org = await createOrganization(stack.db, 50);
  const agent = await publishAgent(stack.db, org, flow, 10);
  const { id: runId } = await stack.engine.startRun(agentRun(agent, [{ id: 'topic', value: 'tea' }]));
  await stack.engine.executeNode(await takeJob(stack.queues, runId, 'topic'));
  // `draw` completed with its job; `speak` submitted its own as the cancel came.
  await providerJobs(stack.db.pool, { runId, nodeId: 'draw', attempt: 0 }).remember({ provider: 'replicate', id: 'p' });
  await stack.db.pool.query(
    `UPDATE node_executions SET status = 'completed', output = '{"type": "images", "value": []}'
      WHERE run_id = $1 AND node_id = 'draw'`,
    [runId],
  );
  await stack.engine.cancelRun(org, runId, 'agent');
  await providerJobs(stack.db.pool, { runId, nodeId: 'speak', attempt: 0 }).remember({ provider: 'fal', id: 'r' });

  const [draw, speak] = await jobsOf(runId);
  expect(draw).toMatchObject({ cancel_due_in_ms: null, canceled: false });
  expect(speak!.cancel_due_in_ms).toBeGreaterThan(5_000);
});
