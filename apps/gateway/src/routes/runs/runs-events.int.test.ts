import type { Flow } from '@weft/contracts';
import { waitFor } from '@weft/testing';
import request from 'supertest';
import { postAgent, reviewFlow } from '../../testing/catalog-fixtures';
import { baseUrl, openEventStream, type EventStreamClient, type StreamEvent } from '../../testing/event-stream';
import { startFakeProvider, type FakeProvider } from '../../testing/fake-provider';
import type { TestGateway } from '../../testing/test-gateway';
import { startRunStack, type RunStack } from '../../testing/test-runs';

// GET /runs/{id}/events and /app-runs/{id}/events (docs/api.md#following-a-run-live): a run
// followed live, resumed with Last-Event-ID, parked on a review, canceled; the same 404 as GET;
// events reaching a stream on another gateway instance; keep-alives, and the periodic check
// that makes up for a lost change message. Shutdown: runs-events-shutdown.int.test.ts; a client that
// stops reading: runs-events-slow-client.int.test.ts.

let stack: RunStack;
let provider: FakeProvider;
let apiKey: string;
let gates = 0;

/** Every stream a test opens is hung up after it, whatever became of the test. */
const opened: EventStreamClient[] = [];
async function connect(...args: Parameters<typeof openEventStream>): Promise<EventStreamClient> {
  const stream = await openEventStream(...args);
  opened.push(stream);
  return stream;
}

beforeAll(async () => {
  [stack, provider] = await Promise.all([startRunStack(), startFakeProvider()]);
  ({ apiKey } = await stack.gw.createOrg('Follower', 1000));
});
afterEach(() => {
  for (const stream of opened.splice(0)) stream.close();
});
afterAll(async () => {
  await stack.close();
  await provider.close();
});

/** A gate of the fake provider of its own: the node calling it runs until the test opens it. */
function newGate(): { url: string; open(): void } {
  const name = `gate-${++gates}`;
  return { url: provider.url(`/gate?name=${name}`), open: () => provider.openGate(name) };
}

/**
 * topic → query (held at `gate`) → join (instant, settled in query's commit) → shout (a queued
 * provider node). `join` sorts before `query`: events of one commit come upstream first, not by name.
 */
const gatedFlow = (gate: string): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'query', type: 'generic_provider', params: { url: gate }, inputs: { prompt: 'topic' } },
    { id: 'join', type: 'prompt_concatenate', params: { separator: ' / ' }, inputs: { parts: ['topic', 'query'] } },
    { id: 'shout', type: 'generic_provider', params: { url: provider.url('/ok') }, inputs: { prompt: 'join' } },
  ],
  outputs: [{ id: 'shout', type: 'text', description: 'The answer' }],
});

/** topic → a (held at `first`) → b (held at `second`) → join. */
const twoGatesFlow = (first: string, second: string): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'a', type: 'generic_provider', params: { url: first }, inputs: { prompt: 'topic' } },
    { id: 'b', type: 'generic_provider', params: { url: second }, inputs: { prompt: 'a' } },
    { id: 'join', type: 'prompt_concatenate', inputs: { parts: ['a', 'b'] } },
  ],
  outputs: [{ id: 'join', type: 'text', description: '' }],
});

async function startRun(flow: Flow, gw: TestGateway = stack.gw, key = apiKey): Promise<string> {
  const agent = await postAgent(gw.app, key, { flow });
  const res = await request(gw.app)
    .post('/runs')
    .set('X-Api-Key', key)
    .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: 'tea' }] });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const follow = (runId: string, headers: Record<string, string> = {}, gw: TestGateway = stack.gw) =>
  connect(baseUrl(gw.server), `/runs/${runId}/events`, { 'X-Api-Key': apiKey, ...headers });

const getRun = async (path: string) => (await request(stack.gw.app).get(path).set('X-Api-Key', apiKey)).body;

const nodeEvent = (nodeId: string, status: string) => (e: StreamEvent) =>
  e.event === 'node' && e.data.node_id === nodeId && e.data.status === status;

const indexOf = (events: StreamEvent[], match: (e: StreamEvent) => boolean) => events.findIndex(match);

/** Each node's last state over every stream a client read, in order. */
function lastStates(...streams: EventStreamClient[]): Record<string, string> {
  const states: Record<string, string> = {};
  for (const s of streams) for (const e of s.events) if (e.event === 'node') states[e.data.node_id] = e.data.status;
  return states;
}

test('a run followed from its creation: `run` first, each node as it changes, `end` with the record GET shows', async () => {
  const gate = newGate();
  const runId = await startRun(gatedFlow(gate.url));
  const stream = await follow(runId);
  expect(stream.status).toBe(200);
  expect(stream.headers['content-type']).toBe('text/event-stream');
  expect(stream.headers['cache-control']).toBe('no-cache');
  expect(stream.headers['x-accel-buffering']).toBe('no');

  await stream.until('query running', nodeEvent('query', 'running'));
  gate.open();
  expect(await stream.finished()).toBe('ended');

  const { events } = stream;
  expect(events[0]).toMatchObject({ event: 'run', data: { id: runId, status: 'in_progress' } });
  expect(events.at(-1)!.event).toBe('end');
  expect(events.filter((e) => e.event === 'end')).toHaveLength(1);
  expect(events.at(-1)!.data).toEqual(await getRun(`/runs/${runId}`));
  expect(events.at(-1)!.data).toMatchObject({ status: 'completed', progress: 1 });
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);

  // Every node reaches completed, upstream before downstream.
  const completedAt = ['topic', 'query', 'join', 'shout'].map((id) => indexOf(events, nodeEvent(id, 'completed')));
  expect(completedAt.every((i) => i > 0)).toBe(true);
  expect([...completedAt].sort((a, b) => a - b)).toEqual(completedAt);
  expect(indexOf(events, nodeEvent('query', 'running'))).toBeLessThan(completedAt[1]!);
  const query = events.find(nodeEvent('query', 'completed'))!.data;
  expect(query).toEqual({
    node_id: 'query',
    type: 'generic_provider',
    status: 'completed',
    started_at: expect.stringMatching(/Z$/),
    completed_at: expect.stringMatching(/Z$/),
    cost: 0,
    error: null,
  });
  // The record comes again as it changes: progress only grows.
  const progress = events.filter((e) => e.event !== 'node').map((e) => e.data.progress as number);
  expect([...progress].sort((a, b) => a - b)).toEqual(progress);
});

test('a client reconnecting with Last-Event-ID gets every change after it, once; after the end, `run` then `end`', async () => {
  const first = newGate();
  const second = newGate();
  const runId = await startRun(twoGatesFlow(first.url, second.url));
  const before = await follow(runId);
  await before.until('a running', nodeEvent('a', 'running'));
  before.close();
  expect(await before.finished()).toBe('cut');

  // Changes while nobody follows: a completes, b starts.
  first.open();
  await waitFor('b to run', async () => {
    const { rows } = await stack.gw.deps.db.pool.query<{ status: string }>(
      "SELECT status FROM node_executions WHERE run_id = $1 AND node_id = 'b'",
      [runId],
    );
    return rows[0]?.status === 'running';
  });
  const after = await follow(runId, { 'Last-Event-ID': before.events.at(-1)!.id });
  expect(after.status).toBe(200);
  await after.until('b running', nodeEvent('b', 'running'));
  expect(after.events[0]!.event).toBe('run');
  expect(after.events.find(nodeEvent('a', 'completed'))).toBeDefined();
  second.open();
  expect(await after.finished()).toBe('ended');

  // Nothing sent twice, nothing missing: the two streams together end with every node completed.
  const ids = [...before.events, ...after.events].map((e) => e.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(after.events.filter((e) => e.event === 'node' && e.data.node_id === 'topic')).toEqual([]);
  expect(lastStates(before, after)).toEqual({ topic: 'completed', a: 'completed', b: 'completed', join: 'completed' });
  const record = await getRun(`/runs/${runId}`);
  expect(after.events.at(-1)).toMatchObject({ event: 'end', data: record });

  // Resumed from the end: the record, then the end, and nothing else.
  const again = await follow(runId, { 'Last-Event-ID': after.events.at(-1)!.id });
  expect(await again.finished()).toBe('ended');
  expect(again.events.map((e) => [e.event, e.data])).toEqual([
    ['run', record],
    ['end', record],
  ]);
  expect(ids).not.toContain(again.events[0]!.id);
  expect(again.events[1]!.id).toBe(after.events.at(-1)!.id);
});

test('an event has one id on every connection and instance: resuming from any id sends exactly what came after it', async () => {
  const first = newGate();
  const second = newGate();
  const runId = await startRun(twoGatesFlow(first.url, second.url));
  const whole = await follow(runId);
  await whole.until('a running', nodeEvent('a', 'running'));
  first.open();
  await whole.until('b running', nodeEvent('b', 'running'));
  second.open();
  expect(await whole.finished()).toBe('ended');
  const { events } = whole;
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);

  // What a client resuming after events[i] is owed now that the run has ended: each node's last
  // change among those after it (a node's earlier states are not kept), then `end` (resumed from
  // `end` itself too: it closes the stream).
  const owed = (i: number) => [
    ...events
      .slice(i + 1, -1)
      .filter(
        (e, j, after) => e.event === 'node' && !after.slice(j + 1).some((l) => l.data.node_id === e.data.node_id),
      ),
    events.at(-1),
  ];

  const sibling = await stack.gw.startSibling();
  try {
    const seen = new Map<string, StreamEvent>(events.map((e) => [e.id, e]));
    for (const [i, event] of events.entries()) {
      // Every other reconnect lands on another gateway instance.
      const resumed = await follow(runId, { 'Last-Event-ID': event.id }, i % 2 ? sibling : stack.gw);
      expect(resumed.status).toBe(200);
      expect(await resumed.finished()).toBe('ended');
      const [opening, ...rest] = resumed.events;
      expect(opening).toMatchObject({ event: 'run', data: events.at(-1)!.data });
      expect(rest).toEqual(owed(i));
      // No id names two different events, over every connection.
      for (const e of resumed.events) {
        if (seen.has(e.id))
          expect([e.id, e.event, e.data]).toEqual([e.id, seen.get(e.id)!.event, seen.get(e.id)!.data]);
        seen.set(e.id, e);
      }
    }
  } finally {
    await sibling.close();
  }
});

test('a stream opened on a run that has ended sends `run` then `end` and closes', async () => {
  const runId = await startRun({ nodes: [{ id: 'topic', type: 'text_input' }], outputs: [] });
  const ended = await waitFor('the run to end', async () => {
    const run = await getRun(`/runs/${runId}`);
    return run.status === 'completed' ? run : undefined;
  });
  const stream = await follow(runId);
  expect(await stream.finished()).toBe('ended');
  expect(stream.events.map((e) => [e.event, e.data])).toEqual([
    ['run', ended],
    ['end', ended],
  ]);
});

test('a review shows as `run` awaiting it with its pending review, and the run goes on once decided', async () => {
  const runId = await startRun(reviewFlow());
  const stream = await follow(runId);
  const parked = await stream.until('the run to await its review', (e) => e.data.awaiting_human_review === true);
  expect(parked.event).toBe('run');
  expect(parked.data.pending_reviews).toEqual([
    { id: expect.any(String), node_id: 'check', proposed_output: { prompts: ['tea / friendly'] } },
  ]);
  await stream.until('check waiting', nodeEvent('check', 'waiting_review'));

  const decided = await request(stack.gw.app)
    .post(`/runs/${runId}/reviews/${parked.data.pending_reviews[0].id}`)
    .set('X-Api-Key', apiKey)
    .send({ decision: 'approve', output: { prompts: ['tea, approved'] } });
  expect(decided.status).toBe(204);
  expect(await stream.finished()).toBe('ended');
  const { events } = stream;
  expect(indexOf(events, nodeEvent('check', 'completed'))).toBeGreaterThan(
    indexOf(events, nodeEvent('check', 'waiting_review')),
  );
  expect(events.at(-1)).toMatchObject({
    event: 'end',
    data: { status: 'completed', awaiting_human_review: false, pending_reviews: [] },
  });
});

test('a canceled run ends its stream with `end`, canceled', async () => {
  const gate = newGate();
  const runId = await startRun(gatedFlow(gate.url));
  const stream = await follow(runId);
  await stream.until('query running', nodeEvent('query', 'running'));
  expect((await request(stack.gw.app).delete(`/runs/${runId}`).set('X-Api-Key', apiKey)).status).toBe(204);
  expect(await stream.finished()).toBe('ended');
  expect(stream.events.at(-1)).toMatchObject({
    event: 'end',
    data: { status: 'canceled', failure_reason: 'canceled' },
  });
  expect(lastStates(stream)).toMatchObject({
    topic: 'completed',
    query: 'canceled',
    join: 'canceled',
    shout: 'canceled',
  });
});

test('an app run is followed at /app-runs/{id}/events, with its own records', async () => {
  const agent = await postAgent(stack.gw.app, apiKey, {
    flow: { nodes: [{ id: 'topic', type: 'text_input' }], outputs: [{ id: 'topic', type: 'text', description: '' }] },
  });
  const app = await request(stack.gw.app)
    .post('/apps')
    .set('X-Api-Key', apiKey)
    .send({
      name: 'Echo',
      description: 'd',
      agent_id: agent.id,
      inputs: [{ id: 'topic', type: 'text', name: 'Topic', required: true }],
      outputs: [{ id: 'topic', type: 'text', description: 'The topic' }],
    });
  expect(app.status).toBe(201);
  const created = await request(stack.gw.app)
    .post('/app-runs')
    .set('X-Api-Key', apiKey)
    .send({ app_id: app.body.id, inputs: [{ id: 'topic', value: 'tea' }] });
  const stream = await connect(baseUrl(stack.gw.server), `/app-runs/${created.body.id}/events`, {
    'X-Api-Key': apiKey,
  });
  expect(await stream.finished()).toBe('ended');
  const end = stream.events.at(-1)!;
  expect(end).toMatchObject({ event: 'end', data: { app_id: app.body.id, status: 'completed' } });
  expect(end.data.agent_id).toBeUndefined();
  expect(end.data).toEqual(await getRun(`/app-runs/${created.body.id}`));
  // An app run is not an agent run: its id at /runs answers like GET /runs/{id} does.
  const asAgentRun = await follow(created.body.id);
  expect(asAgentRun.status).toBe(404);
});

test('the same 401 and 404 as GET of the run; a Last-Event-ID that is not one of the run is a 422', async () => {
  const runId = await startRun(reviewFlow());
  const other = await stack.gw.createOrg('Other', 10);
  const theirs = await connect(baseUrl(stack.gw.server), `/runs/${runId}/events`, { 'X-Api-Key': other.apiKey });
  const theirGet = await request(stack.gw.app).get(`/runs/${runId}`).set('X-Api-Key', other.apiKey);
  expect(theirGet.status).toBe(404);
  expect([theirs.status, theirs.body]).toEqual([404, theirGet.body]);
  const missing = await follow('00000000-0000-4000-8000-000000000000');
  expect([missing.status, missing.body]).toEqual([404, { detail: 'Run not found' }]);
  const anonymous = await connect(baseUrl(stack.gw.server), `/runs/${runId}/events`);
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers['www-authenticate']).toBe('Bearer');

  for (const id of ['garbage', '1.99999.', '1.0.not-a-node']) {
    const bad = await follow(runId, { 'Last-Event-ID': id });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ detail: [{ loc: ['header', 'Last-Event-ID'] }] });
  }
  const badId = await connect(baseUrl(stack.gw.server), '/runs/not-a-uuid/events', { 'X-Api-Key': apiKey });
  expect(badId.status).toBe(422);
  // HEAD answers what GET would, and ends there.
  const head = await request(stack.gw.app).head(`/runs/${runId}/events`).set('X-Api-Key', apiKey);
  expect([head.status, head.headers['content-type']]).toEqual([200, 'text/event-stream']);
  expect((await request(stack.gw.app).head(`/runs/${runId}/events`).set('X-Api-Key', other.apiKey)).status).toBe(404);
});

test('a stream on another gateway instance gets the changes a run makes through the first', async () => {
  // Its periodic check is far off: only the change messages can bring these events.
  const sibling = await stack.gw.startSibling({ EVENTS_KEEPALIVE_MS: '300000' });
  try {
    const gate = newGate();
    const runId = await startRun(gatedFlow(gate.url));
    const stream = await follow(runId, {}, sibling);
    await stream.until('query running', nodeEvent('query', 'running'));
    gate.open();
    expect(await stream.finished()).toBe('ended');
    expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
    expect(lastStates(stream)).toEqual({
      topic: 'completed',
      query: 'completed',
      join: 'completed',
      shout: 'completed',
    });
  } finally {
    await sibling.close();
  }
});

test('an idle stream gets keep-alive comments, and a change message lost on the way only delays its events', async () => {
  // This instance listens on another prefix: no change message reaches it. Its check, every 200 ms, still does.
  const deaf = await stack.gw.startSibling({
    EVENTS_KEEPALIVE_MS: '200',
    REDIS_PREFIX: `${stack.gw.config.REDIS_PREFIX}:deaf`,
  });
  try {
    const gate = newGate();
    const runId = await startRun(gatedFlow(gate.url));
    const stream = await follow(runId, {}, deaf);
    await stream.until('query running', nodeEvent('query', 'running'));
    await waitFor('two keep-alives', () => stream.comments.filter((c) => c === 'keep-alive').length >= 2);
    gate.open();
    expect(await stream.finished()).toBe('ended');
    expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
  } finally {
    await deaf.close();
  }
});
