import type { Flow } from '@weft/contracts';
import { ConflictError, NotFoundError } from '@weft/errors';
import type { ExecuteNodeJob } from '@weft/queue';
import { waitFor } from '@weft/testing';
import { agentRun, createOrganization, publishAgent } from '../testing/catalog-rows';
import { startEngineTestStack, type EngineTestStack } from '../testing/engine-test-stack';
import { startProviderDouble, type ProviderDouble } from '../testing/provider-double';
import { jobIds, queuedJobIds, takeJob } from '../testing/queued-jobs';
import { balanceOf, ledgerOf, nodeStatuses, storedNodes, storedReviews, storedRun } from '../testing/stored-rows';

// A run ending before it completes: canceled by its organization, or failed
// by one of its nodes. Either way open nodes and reviews are canceled, queued
// jobs removed, nodes executing aborted, and what was not consumed given back.

let stack: EngineTestStack;
let provider: ProviderDouble;

beforeAll(async () => {
  [stack, provider] = await Promise.all([startEngineTestStack(), startProviderDouble()]);
});
afterAll(async () => {
  await stack.close();
  await provider.close();
});

const NOTHING = { settled: [], enqueued: [] };

/** Starts a run of `flow` reserving 10 of an organization's 50 credits, and executes its text_input root. */
async function startAndExecuteTopic(flow: Flow, topic = 'tea') {
  const org = await createOrganization(stack.db, 50);
  const agent = await publishAgent(stack.db, org, flow, 10);
  const { id: runId } = await stack.engine.startRun(agentRun(agent, [{ id: 'topic', value: topic }]));
  const executed = await stack.engine.executeNode(await takeJob(stack.queues, runId, 'topic'));
  return { org, runId, executed };
}

test('cancel ends the run canceled: open nodes and reviews canceled, queued jobs removed, the rest of the credits given back', async () => {
  const { org, runId } = await startAndExecuteTopic({
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'check', type: 'human_review', inputs: { value: 'topic' } },
      {
        id: 'first',
        type: 'generic_provider',
        params: { url: provider.url('/echo'), cost: 3 },
        inputs: { prompt: 'topic' },
      },
      {
        id: 'second',
        type: 'generic_provider',
        params: { url: provider.url('/echo'), cost: 3 },
        inputs: { prompt: 'first' },
      },
    ],
    outputs: [],
  });
  const { enqueued } = await stack.engine.executeNode(await takeJob(stack.queues, runId, 'first'));
  const second: ExecuteNodeJob = { runId, ...enqueued[0]! };
  expect(await queuedJobIds(stack.queues.light, runId)).toEqual(jobIds(runId, [{ nodeId: 'second' }]));

  await stack.engine.cancelRun(org, runId, 'agent');

  expect(await storedRun(stack.db, runId)).toMatchObject({
    status: 'canceled',
    failure_reason: 'canceled',
    error: null,
    cost: 3,
    current_node: null,
    awaiting_human_review: false,
  });
  expect(await nodeStatuses(stack.db, runId)).toEqual({
    topic: 'completed',
    check: 'canceled',
    first: 'completed',
    second: 'canceled',
  });
  expect((await storedReviews(stack.db, runId)).map((r) => r.status)).toEqual(['canceled']);
  expect(await queuedJobIds(stack.queues.light, runId)).toEqual([]);
  // What the completed node consumed is charged; the rest of the reservation comes back.
  expect(await ledgerOf(stack.db, runId)).toEqual([
    { kind: 'reserve', amount: -10, note: 'estimated cost reserved' },
    { kind: 'release', amount: 10, note: 'reservation released' },
    { kind: 'charge', amount: -3, note: "node 'first' (generic_provider)" },
  ]);
  expect(await balanceOf(stack.db, org)).toEqual({ credits: 40, pending: 7, total: 47 });
  expect(stack.ended).toContainEqual({
    kind: 'agent',
    status: 'canceled',
    failureReason: 'canceled',
    reservedCredits: 10,
    chargedCredits: 3,
  });
  // A job delivered anyway (taken just before the cancel) executes nothing.
  const calls = provider.calls('/echo');
  expect(await stack.engine.executeNode(second)).toEqual(NOTHING);
  expect(provider.calls('/echo')).toBe(calls);
});

test('cancel of an ended run is a conflict; of another kind or organization, not found; none changes the run', async () => {
  const flow: Flow = {
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'ask', type: 'generic_provider', params: { url: provider.url('/echo') }, inputs: { prompt: 'topic' } },
    ],
    outputs: [],
  };
  const { org, runId } = await startAndExecuteTopic(flow);
  const stranger = await createOrganization(stack.db, 50);

  await expect(stack.engine.cancelRun(org, runId, 'app')).rejects.toBeInstanceOf(NotFoundError);
  await expect(stack.engine.cancelRun(stranger, runId, 'agent')).rejects.toBeInstanceOf(NotFoundError);
  expect(await storedRun(stack.db, runId)).toMatchObject({ status: 'in_progress' });
  expect(await queuedJobIds(stack.queues.light, runId)).toEqual(jobIds(runId, [{ nodeId: 'ask' }]));

  await stack.engine.cancelRun(org, runId, 'agent');
  const ended = await storedRun(stack.db, runId);
  const ledger = await ledgerOf(stack.db, runId);

  await expect(stack.engine.cancelRun(org, runId, 'agent')).rejects.toBeInstanceOf(ConflictError);
  expect(await storedRun(stack.db, runId)).toEqual(ended);
  expect(await ledgerOf(stack.db, runId)).toEqual(ledger);
});

test("a node's failure ends its run failed with the failure's reason, and cancels the node running beside it", async () => {
  const { org, runId, executed } = await startAndExecuteTopic({
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'down', type: 'generic_provider', params: { url: provider.url('/down') }, inputs: { prompt: 'topic' } },
      { id: 'beside', type: 'generic_provider', params: { url: provider.url('/echo') }, inputs: { prompt: 'topic' } },
    ],
    outputs: [],
  });
  expect(executed.enqueued.map((d) => d.nodeId).sort()).toEqual(['beside', 'down']);

  expect(await stack.engine.executeNode(await takeJob(stack.queues, runId, 'down'))).toEqual(NOTHING);

  const error = "Provider of node 'down' failed (503)";
  expect(await storedRun(stack.db, runId)).toMatchObject({
    status: 'failed',
    failure_reason: 'provider_error',
    error,
    cost: 0,
  });
  const nodes = await storedNodes(stack.db, runId);
  expect(nodes['down']).toMatchObject({ status: 'failed', error });
  expect(nodes['beside']!.status).toBe('canceled');
  expect(await queuedJobIds(stack.queues.light, runId)).toEqual([]);
  expect(await ledgerOf(stack.db, runId)).toEqual([
    { kind: 'reserve', amount: -10, note: 'estimated cost reserved' },
    { kind: 'release', amount: 10, note: 'reservation released' },
  ]);
  expect(await balanceOf(stack.db, org)).toEqual({ credits: 40, pending: 10, total: 50 });
  expect(stack.ended).toContainEqual({
    kind: 'agent',
    status: 'failed',
    failureReason: 'provider_error',
    reservedCredits: 10,
    chargedCredits: 0,
  });
});

test('an instant node failing in a chain ends the run failed, after the nodes before it were committed', async () => {
  const { runId, executed } = await startAndExecuteTopic(
    {
      nodes: [
        { id: 'topic', type: 'text_input' },
        { id: 'lines', type: 'text_split', inputs: { text: 'topic' } },
        { id: 'pick', type: 'list_selector', params: { index: 5 }, inputs: { list: 'lines' } },
      ],
      outputs: [],
    },
    'black\ngreen',
  );

  expect(executed).toEqual({ settled: ['topic', 'lines'], enqueued: [] });
  const error = "Node 'pick': index 5 is outside the list of 2 item(s)";
  expect(await storedRun(stack.db, runId)).toMatchObject({ status: 'failed', failure_reason: 'invalid_input', error });
  const nodes = await storedNodes(stack.db, runId);
  expect(nodes['lines']).toMatchObject({ status: 'completed', output: { type: 'data', value: ['black', 'green'] } });
  expect(nodes['pick']).toMatchObject({ status: 'failed', error });
});

test('a node executing when its run is canceled is aborted, and its execution records nothing', async () => {
  const { org, runId } = await startAndExecuteTopic({
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'wait', type: 'generic_provider', params: { url: provider.url('/hold') }, inputs: { prompt: 'topic' } },
    ],
    outputs: [],
  });
  const calls = provider.calls('/hold');
  const abandoned = provider.abandoned;
  const executing = stack.engine.executeNode(await takeJob(stack.queues, runId, 'wait'));
  await waitFor('the provider to be called', () => provider.calls('/hold') > calls);

  await stack.engine.cancelRun(org, runId, 'agent');

  expect(await executing).toEqual(NOTHING);
  await waitFor('the provider call to be abandoned', () => provider.abandoned > abandoned);
  expect(await nodeStatuses(stack.db, runId)).toEqual({ topic: 'completed', wait: 'canceled' });
  expect(stack.engine.inFlight.size).toBe(0);
});
