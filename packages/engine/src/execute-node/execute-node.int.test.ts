import type { Flow } from '@weft/contracts';
import { agentRun, createOrganization, publishAgent, type PublishedAgent } from '../testing/catalog-rows';
import { startEngineTestStack, type EngineTestStack } from '../testing/engine-test-stack';
import { startProviderDouble, type ProviderDouble } from '../testing/provider-double';
import { jobIds, queuedJobIds, takeJob } from '../testing/queued-jobs';
import { balanceOf, ledgerOf, nodeStatuses, storedNodes, storedRun } from '../testing/stored-rows';

// Executing a node: its result settled with the instant nodes that follow
// from it in one commit, the next nodes dispatched, redelivery harmless, and
// the run completed with its results and its credits settled.

let stack: EngineTestStack;
let provider: ProviderDouble;

beforeAll(async () => {
  [stack, provider] = await Promise.all([startEngineTestStack(), startProviderDouble()]);
});
afterAll(async () => {
  await stack.close();
  await provider.close();
});

/** topic → ask (a provider call costing 3) → join (instant, of ask and topic). */
const askFlow = (url: string): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'ask', type: 'generic_provider', params: { url, cost: 3 }, inputs: { prompt: 'topic' } },
    { id: 'join', type: 'prompt_concatenate', params: { separator: ' | ' }, inputs: { parts: ['ask', 'topic'] } },
  ],
  outputs: [{ id: 'join', type: 'text', description: 'Joined' }],
});

async function startAsk(path: '/echo' | '/takes'): Promise<{ agent: PublishedAgent; runId: string }> {
  const org = await createOrganization(stack.db, 50);
  const agent = await publishAgent(stack.db, org, askFlow(provider.url(path)), 10);
  const started = await stack.engine.startRun(agentRun(agent, [{ id: 'topic', value: 'tea' }]));
  return { agent, runId: started.id };
}

test('executing a dispatched node settles it and dispatches the nodes it makes ready', async () => {
  const { agent, runId } = await startAsk('/echo');

  const executed = await stack.engine.executeNode(await takeJob(stack.queues, runId, 'topic'));

  expect(executed).toEqual({
    settled: ['topic'],
    enqueued: [{ nodeId: 'ask', attempt: 0, nodeType: 'generic_provider' }],
  });
  const nodes = await storedNodes(stack.db, runId);
  expect(nodes['topic']).toMatchObject({ status: 'completed', output: { type: 'text', value: 'tea' } });
  expect(nodes['ask']!.status).toBe('running');
  expect(nodes['join']!.status).toBe('pending');
  expect(await storedRun(stack.db, runId)).toMatchObject({ status: 'in_progress', current_node: 'generic_provider' });
  expect(await queuedJobIds(stack.queues.light, runId)).toEqual(jobIds(runId, [{ nodeId: 'ask' }]));
  // A provider node holds one of its organization's slots: its job says whose, for the worker to give it back.
  expect(await takeJob(stack.queues, runId, 'ask')).toMatchObject({ organizationId: agent.organizationId });
});

test('the instant nodes after a result settle in its commit; the run completes with its results and its credits settled', async () => {
  const { agent, runId } = await startAsk('/echo');
  await stack.engine.executeNode(await takeJob(stack.queues, runId, 'topic'));
  const before = await storedRun(stack.db, runId);

  const executed = await stack.engine.executeNode(await takeJob(stack.queues, runId, 'ask'));

  expect(executed).toEqual({ settled: ['ask', 'join'], enqueued: [] });
  const run = await storedRun(stack.db, runId);
  // One transition: the run's version moved once for the provider node, the instant node and the completion.
  expect(run.version).toBe(before.version + 1);
  expect(run).toMatchObject({
    status: 'completed',
    cost: 3,
    results: [{ id: 'join', type: 'text', value: 'echo:tea | tea', description: 'Joined' }],
  });
  expect(await nodeStatuses(stack.db, runId)).toEqual({ topic: 'completed', ask: 'completed', join: 'completed' });
  expect(await ledgerOf(stack.db, runId)).toEqual([
    { kind: 'reserve', amount: -10, note: 'estimated cost reserved' },
    { kind: 'release', amount: 10, note: 'reservation released' },
    { kind: 'charge', amount: -3, note: "node 'ask' (generic_provider)" },
  ]);
  // What the reservation did not consume comes back as pending credits.
  expect(await balanceOf(stack.db, agent.organizationId)).toEqual({ credits: 40, pending: 7, total: 47 });
  expect(stack.ended).toContainEqual({
    kind: 'agent',
    status: 'completed',
    failureReason: null,
    reservedCredits: 10,
    chargedCredits: 3,
  });
});

test('a redelivered job changes nothing the second time', async () => {
  const { agent, runId } = await startAsk('/echo');
  const root = await takeJob(stack.queues, runId, 'topic');
  await stack.engine.executeNode(root);
  const ask = await takeJob(stack.queues, runId, 'ask');
  await stack.engine.executeNode(ask);
  const calls = provider.calls('/echo');
  const [run, nodes, ledger, balance] = await Promise.all([
    storedRun(stack.db, runId),
    storedNodes(stack.db, runId),
    ledgerOf(stack.db, runId),
    balanceOf(stack.db, agent.organizationId),
  ]);

  expect(await stack.engine.executeNode(ask)).toEqual({ settled: [], enqueued: [] });
  expect(await stack.engine.executeNode(root)).toEqual({ settled: [], enqueued: [] });

  expect(provider.calls('/echo')).toBe(calls);
  expect(await storedRun(stack.db, runId)).toEqual(run);
  expect(await storedNodes(stack.db, runId)).toEqual(nodes);
  expect(await ledgerOf(stack.db, runId)).toEqual(ledger);
  expect(await balanceOf(stack.db, agent.organizationId)).toEqual(balance);
});

test('two executions of one attempt at once: one result is committed, and charged, once', async () => {
  const { runId } = await startAsk('/takes');
  await stack.engine.executeNode(await takeJob(stack.queues, runId, 'topic'));
  const ask = await takeJob(stack.queues, runId, 'ask');

  const both = await Promise.all([stack.engine.executeNode(ask), stack.engine.executeNode(ask)]);

  expect(both.map((e) => e.settled)).toEqual(expect.arrayContaining([['ask', 'join'], []]));
  const nodes = await storedNodes(stack.db, runId);
  const answer = (nodes['ask']!.output as { value: string }).value;
  expect(['take 1', 'take 2']).toContain(answer);
  expect(nodes['ask']!.cost).toBe(3);
  expect(nodes['join']!.output).toEqual({ type: 'text', value: `${answer} | tea` });
  expect(await storedRun(stack.db, runId)).toMatchObject({ status: 'completed', cost: 3 });
  expect((await ledgerOf(stack.db, runId)).filter((l) => l.kind === 'charge')).toEqual([
    { kind: 'charge', amount: -3, note: "node 'ask' (generic_provider)" },
  ]);
});

test('nodes only a route not taken leads to end skipped, and are never executed', async () => {
  const org = await createOrganization(stack.db, 50);
  const agent = await publishAgent(stack.db, org, {
    nodes: [
      { id: 'topic', type: 'text_input' },
      {
        id: 'route',
        type: 'router',
        params: { routes: [{ port: 'tea', when: { contains: 'tea' } }], default_port: 'other' },
        inputs: { value: 'topic' },
      },
      {
        id: 'ask',
        type: 'generic_provider',
        params: { url: provider.url('/echo') },
        inputs: { prompt: 'route.other' },
      },
      { id: 'brew', type: 'prompt_concatenate', params: { separator: ' ' }, inputs: { parts: ['route.tea', 'topic'] } },
    ],
    outputs: [
      { id: 'brew', type: 'text', description: 'Tea' },
      { id: 'ask', type: 'text', description: 'Anything else' },
    ],
  });
  const { id: runId } = await stack.engine.startRun(agentRun(agent, [{ id: 'topic', value: 'green tea' }]));
  const calls = provider.calls('/echo');

  const executed = await stack.engine.executeNode(await takeJob(stack.queues, runId, 'topic'));

  expect(executed).toEqual({ settled: ['topic', 'route', 'brew'], enqueued: [] });
  expect(await nodeStatuses(stack.db, runId)).toEqual({
    topic: 'completed',
    route: 'completed',
    brew: 'completed',
    ask: 'skipped',
  });
  expect(await storedRun(stack.db, runId)).toMatchObject({
    status: 'completed',
    results: [
      { id: 'brew', type: 'text', value: 'green tea green tea', description: 'Tea' },
      { id: 'ask', type: 'text', value: null, description: 'Anything else' },
    ],
  });
  expect(provider.calls('/echo')).toBe(calls);
  expect(await queuedJobIds(stack.queues.light, runId)).toEqual([]);
});
