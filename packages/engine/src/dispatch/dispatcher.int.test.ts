import type { Flow } from '@weft/contracts';
import pino from 'pino';
import { uuidv7 } from '@weft/db';
import { agentRun, createOrganization, publishAgent, type PublishedAgent } from '../testing/catalog-rows';
import { startEngineTestStack, type EngineTestStack } from '../testing/engine-test-stack';
import { jobIds, queuedJobIds, takeJob } from '../testing/queued-jobs';
import { nodeStatuses, storedRun } from '../testing/stored-rows';
import { Dispatcher } from './dispatcher';

// Enqueueing dispatched nodes: one job per (run, node, attempt) however often
// it is dispatched, on the queue of its lane, once its organization has a
// slot for it (instant nodes need none).

const MAX_PER_ORG = 2;
const MAX_MEDIA_PER_ORG = 1;
let stack: EngineTestStack;

beforeAll(async () => {
  stack = await startEngineTestStack({ maxPerOrg: MAX_PER_ORG, maxMediaPerOrg: MAX_MEDIA_PER_ORG });
});
afterAll(() => stack.close());

const pictureOnly: Flow = { nodes: [{ id: 'picture', type: 'image_input' }], outputs: [] };

async function startPictureRun(agent: PublishedAgent): Promise<string> {
  return (await stack.engine.startRun(agentRun(agent))).id;
}

test('dispatching a node twice adds one job: its id is its run, node and attempt', async () => {
  const dispatcher = new Dispatcher(stack.queues, pino({ level: 'silent' }));
  const org = await createOrganization(stack.db, 0);
  const runId = uuidv7();
  const nodes = [
    { nodeId: 'topic', attempt: 0, nodeType: 'text_input' },
    { nodeId: 'ask', attempt: 0, nodeType: 'generic_provider' },
  ];

  expect(await dispatcher.dispatch(org, runId, nodes)).toBe(true);
  expect(await dispatcher.dispatch(org, runId, nodes)).toBe(true);

  expect(await queuedJobIds(stack.queues.light, runId)).toEqual(jobIds(runId, nodes));
  // The next attempt of a node is another job.
  await dispatcher.dispatch(org, runId, [{ nodeId: 'ask', attempt: 1, nodeType: 'generic_provider' }]);
  expect(await queuedJobIds(stack.queues.light, runId)).toEqual(
    jobIds(runId, [...nodes, { nodeId: 'ask', attempt: 1 }]),
  );
});

test('instant and provider nodes go to the light queue, media nodes to the heavy one', async () => {
  const org = await createOrganization(stack.db, 0);
  const agent = await publishAgent(stack.db, org, {
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'speak', type: 'text_to_speech', inputs: { text: 'topic' } },
      { id: 'ask', type: 'generic_provider', params: { url: 'http://127.0.0.1:9/never' }, inputs: { prompt: 'topic' } },
    ],
    outputs: [],
  });
  const { id: runId } = await stack.engine.startRun(agentRun(agent, [{ id: 'topic', value: 'tea' }]));
  expect(await queuedJobIds(stack.queues.light, runId)).toEqual(jobIds(runId, [{ nodeId: 'topic' }]));
  const topic = await takeJob(stack.queues, runId, 'topic');
  // An instant node holds no slot of its organization.
  expect(topic.organizationId).toBeUndefined();

  const { enqueued } = await stack.engine.executeNode(topic);

  expect(enqueued.map((d) => d.nodeId).sort()).toEqual(['ask', 'speak']);
  expect(await queuedJobIds(stack.queues.heavy, runId)).toEqual(jobIds(runId, [{ nodeId: 'speak' }]));
  expect(await queuedJobIds(stack.queues.light, runId)).toEqual(jobIds(runId, [{ nodeId: 'ask' }]));
  expect((await stack.queues.heavy.getJob(jobIds(runId, [{ nodeId: 'speak' }])[0]!))?.data).toMatchObject({
    nodeType: 'text_to_speech',
    organizationId: org,
  });
});

test("an organization's nodes beyond its slots wait for a finished job; instant nodes and other organizations do not", async () => {
  const org = await createOrganization(stack.db, 0);
  const agent = await publishAgent(stack.db, org, pictureOnly);
  const runs = [await startPictureRun(agent), await startPictureRun(agent), await startPictureRun(agent)];

  const queued = await Promise.all(runs.map((runId) => queuedJobIds(stack.queues.light, runId)));
  expect(queued.map((ids) => ids.length)).toEqual([1, 1, 0]);
  // The third is dispatched all the same: PostgreSQL holds it, the slots hold its place in line.
  expect(await nodeStatuses(stack.db, runs[2]!)).toEqual({ picture: 'running' });

  const textOnly = await publishAgent(stack.db, org, {
    nodes: [{ id: 'topic', type: 'text_input' }],
    outputs: [],
  });
  const { id: instantRun } = await stack.engine.startRun(agentRun(textOnly, [{ id: 'topic', value: 'tea' }]));
  expect(await queuedJobIds(stack.queues.light, instantRun)).toEqual(jobIds(instantRun, [{ nodeId: 'topic' }]));
  const other = await publishAgent(stack.db, await createOrganization(stack.db, 0), pictureOnly);
  const otherRun = await startPictureRun(other);
  expect(await queuedJobIds(stack.queues.light, otherRun)).toEqual(jobIds(otherRun, [{ nodeId: 'picture' }]));

  const first = await takeJob(stack.queues, runs[0]!, 'picture');
  await stack.engine.executeNode(first);
  await stack.engine.finishedJob(first);

  expect(await storedRun(stack.db, runs[0]!)).toMatchObject({ status: 'completed' });
  expect(await queuedJobIds(stack.queues.light, runs[2]!)).toEqual(jobIds(runs[2]!, [{ nodeId: 'picture' }]));
});

test('a node waiting for a slot whose run is canceled leaves the line: the next slot goes to the one after it', async () => {
  const org = await createOrganization(stack.db, 0);
  const agent = await publishAgent(stack.db, org, pictureOnly);
  const runs: string[] = [];
  for (let i = 0; i < MAX_PER_ORG + 2; i++) runs.push(await startPictureRun(agent));
  const [holding, , canceled, next] = runs;

  await stack.engine.cancelRun(org, canceled!, 'agent');
  const done = await takeJob(stack.queues, holding!, 'picture');
  await stack.engine.executeNode(done);
  await stack.engine.finishedJob(done);

  expect(await queuedJobIds(stack.queues.light, canceled!)).toEqual([]);
  expect(await queuedJobIds(stack.queues.light, next!)).toEqual(jobIds(next!, [{ nodeId: 'picture' }]));
});

test('media nodes have a share of their own: they wait for a media slot, provider calls do not wait for them', async () => {
  const dispatcher = new Dispatcher(stack.queues, pino({ level: 'silent' }));
  const org = await createOrganization(stack.db, 0);
  const runId = uuidv7();
  const speak = (nodeId: string) => ({ nodeId, attempt: 0, nodeType: 'text_to_speech' });
  const ask = (nodeId: string) => ({ nodeId, attempt: 0, nodeType: 'generic_provider' });

  await dispatcher.dispatch(org, runId, [speak('speak-1'), speak('speak-2'), ask('ask-1'), ask('ask-2')]);

  // One media slot (MAX_MEDIA_PER_ORG) and two provider ones (MAX_PER_ORG), counted apart.
  expect(await queuedJobIds(stack.queues.heavy, runId)).toEqual(jobIds(runId, [{ nodeId: 'speak-1' }]));
  expect(await queuedJobIds(stack.queues.light, runId)).toEqual(
    jobIds(runId, [{ nodeId: 'ask-1' }, { nodeId: 'ask-2' }]),
  );
  expect(await dispatcher.waitsForSlot(org, { ...speak('speak-2'), runId })).toBe(true);

  // A provider call finishing frees a provider slot, not a media one.
  const asked = await takeJob(stack.queues, runId, 'ask-1');
  await dispatcher.finished(asked);
  expect(await queuedJobIds(stack.queues.heavy, runId)).toEqual(jobIds(runId, [{ nodeId: 'speak-1' }]));
  expect(await dispatcher.waitsForSlot(org, { ...speak('speak-2'), runId })).toBe(true);

  const spoken = await takeJob(stack.queues, runId, 'speak-1');
  await dispatcher.finished(spoken);
  expect(await queuedJobIds(stack.queues.heavy, runId)).toEqual(jobIds(runId, [{ nodeId: 'speak-2' }]));
});
