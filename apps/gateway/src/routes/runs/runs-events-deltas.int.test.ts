import type { Flow } from '@weft/contracts';
import { createNodeRoutes } from '@weft/providers';
import { startOpenAIDouble, waitFor, type OpenAIDouble } from '@weft/testing';
import request from 'supertest';
import { postAgent } from '../../testing/catalog-fixtures';
import { baseUrl, openEventStream, type EventStreamClient, type StreamEvent } from '../../testing/event-stream';
import { resultOf } from '../../testing/media/runs';
import { pollRun, startRunStack, type RunStack } from '../../testing/test-runs';

// `delta` events (docs/api.md#following-a-run-live): an llm node streaming from an
// OpenAI-compatible server (the double, chunk by chunk, driven by the real SDK) sends its text
// on the run's event stream as it comes; the deltas are not stored, have no id, and a stream
// resumed with Last-Event-ID gets none again. The rest of the stream is what it was.

let double: OpenAIDouble;
let stack: RunStack;
let apiKey: string;

const opened: EventStreamClient[] = [];
async function follow(runId: string, headers: Record<string, string> = {}): Promise<EventStreamClient> {
  const stream = await openEventStream(baseUrl(stack.gw.server), `/runs/${runId}/events`, {
    'X-Api-Key': apiKey,
    ...headers,
  });
  opened.push(stream);
  return stream;
}

beforeAll(async () => {
  double = await startOpenAIDouble();
  stack = await startRunStack(
    {},
    { nodeRoutes: createNodeRoutes({ OPENAI_API_KEY: 'sk-test-deltas', OPENAI_BASE_URL: double.baseURL }) },
  );
  ({ apiKey } = await stack.gw.createOrg('Deltas', 1000));
});
afterEach(() => {
  for (const stream of opened.splice(0)) stream.close();
  double.streams = true;
  double.chunkGapMs = 5;
});
afterAll(async () => {
  await stack?.close();
  await double?.close();
});

const llmFlow = (params: Record<string, unknown> = {}): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'write', type: 'llm', params, inputs: { prompt: 'topic' } },
  ],
  outputs: [{ id: 'write', type: 'text', description: 'The answer' }],
});

async function startRun(topic: string, flow = llmFlow()): Promise<string> {
  const agent = await postAgent(stack.gw.app, apiKey, { flow });
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: topic }] });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const isNode = (nodeId: string, status: string) => (e: StreamEvent) =>
  e.event === 'node' && e.data.node_id === nodeId && e.data.status === status;
const deltasOf = (stream: EventStreamClient) => stream.events.filter((e) => e.event === 'delta');
const getRun = async (runId: string) =>
  (await request(stack.gw.app).get(`/runs/${runId}`).set('X-Api-Key', apiKey)).body as Record<string, unknown>;

test("an llm node's answer comes as deltas, in order, making its output; the other events are as before", async () => {
  const topic = 'green tea and how it is brewed at home';
  const release = double.holdChats();
  const runId = await startRun(topic);
  const stream = await follow(runId);
  await stream.until('write running', isNode('write', 'running'));
  release();
  expect(await stream.finished()).toBe('ended');

  const run = await getRun(runId);
  expect(run.status).toBe('completed');
  const output = resultOf(run as never, 'write') as string;
  expect(output).toBe(`echo: ${topic}`);

  const deltas = deltasOf(stream);
  // The double sends the answer word by word, 5 ms apart: several deltas, at most one per
  // word (words that reach the worker in one read travel as one delta).
  expect(deltas.length).toBeGreaterThan(1);
  expect(deltas.length).toBeLessThanOrEqual(output.split(' ').length);
  expect(deltas.map((d) => d.data)).toEqual(deltas.map((d, index) => ({ node_id: 'write', index, text: d.data.text })));
  expect(deltas.map((d) => d.data.text).join('')).toBe(output);
  // No id: a delta never moves Last-Event-ID.
  expect(deltas.every((d) => d.id === '')).toBe(true);
  // All of them while the node runs, before the change that settles it.
  const events = stream.events;
  const running = events.findIndex(isNode('write', 'running'));
  const completed = events.findIndex(isNode('write', 'completed'));
  expect(events.findIndex((e) => e.event === 'delta')).toBeGreaterThan(running);
  expect(events.findLastIndex((e) => e.event === 'delta')).toBeLessThan(completed);

  // Without the deltas, the stream is what a client saw before: ids unique, `end` the record.
  const others = events.filter((e) => e.event !== 'delta');
  expect(new Set(others.map((e) => e.id)).size).toBe(others.length);
  expect(others.at(-1)).toEqual({ event: 'end', id: expect.any(String), data: run });

  // Asked to stream with the usage in its last chunk: the charge is the one the whole answer gets.
  const sent = double.requests.filter((r) => JSON.stringify(r.body.messages).includes(topic));
  expect(sent).toHaveLength(1);
  expect(sent[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  // gpt-4o-mini: 150 credits per 1M input tokens, 600 per 1M output, on the double's usage → 6.
  expect(run.cost).toBe(6);
  const { rows } = await stack.gw.deps.db.pool.query('SELECT usage, credits FROM node_charges WHERE run_id = $1', [
    runId,
  ]);
  expect(rows).toEqual([{ usage: { input_tokens: 12_345, output_tokens: 6_789 }, credits: 6 }]);
});

test('a stream resumed with Last-Event-ID gets no delta again, during the node and after the run', async () => {
  double.chunkGapMs = 50;
  const release = double.holdChats();
  const runId = await startRun('one two three four five six seven eight');
  const first = await follow(runId);
  await first.until('write running', isNode('write', 'running'));
  release();
  await first.until('a delta', (e) => e.event === 'delta');
  const lastId = first.events.findLast((e) => e.id !== '')!.id;
  first.close();

  // Resumed while the node still streams: deltas from now on, none of those already sent.
  const resumed = await follow(runId, { 'Last-Event-ID': lastId });
  expect(await resumed.finished()).toBe('ended');
  const seen = new Set(deltasOf(first).map((d) => d.data.index as number));
  expect(deltasOf(resumed).filter((d) => seen.has(d.data.index as number))).toEqual([]);

  // Resumed once the run has ended: the record and the end only.
  const after = await follow(runId, { 'Last-Event-ID': lastId });
  expect(await after.finished()).toBe('ended');
  expect(deltasOf(after)).toEqual([]);
  expect(after.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
  const fromStart = await follow(runId);
  expect(await fromStart.finished()).toBe('ended');
  expect(fromStart.events.map((e) => e.event)).toEqual(['run', 'end']);
});

test('a server that answers a streaming request whole, and options.stream false: the same output, no deltas', async () => {
  double.streams = false;
  const runId = await startRun('answered whole');
  const stream = await follow(runId);
  expect(await stream.finished()).toBe('ended');
  expect(resultOf((await getRun(runId)) as never, 'write')).toBe('echo: answered whole');
  expect(deltasOf(stream)).toEqual([]);

  double.streams = true;
  const unstreamed = await startRun('not streamed', llmFlow({ options: { stream: false } }));
  const other = await follow(unstreamed);
  expect(await other.finished()).toBe('ended');
  expect(resultOf((await getRun(unstreamed)) as never, 'write')).toBe('echo: not streamed');
  expect(deltasOf(other)).toEqual([]);
  expect(double.requests.at(-1)!.body.stream).toBe(false);
});

test('canceling the run while the answer streams hangs up on the provider', async () => {
  double.chunkGapMs = 200;
  const cutBefore = double.chatsCut;
  const runId = await startRun('a long answer that takes its time to be written word after word');
  const stream = await follow(runId);
  await stream.until('a delta', (e) => e.event === 'delta');
  await request(stack.gw.app).delete(`/runs/${runId}`).set('X-Api-Key', apiKey).expect(204);
  expect(await stream.finished()).toBe('ended');
  expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'canceled' } });
  await waitFor('the provider hung up on', () => (double.chatsCut > cutBefore ? true : undefined));
  await pollRun(stack.gw, apiKey, `/runs/${runId}`, (r) => r.status === 'canceled');
});
