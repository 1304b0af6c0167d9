import { newKeyEntry } from '@weft/credentials';
import { deliverWebhookJobId, WEBHOOK_QUEUE } from '@weft/queue';
import { waitFor } from '@weft/testing';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { postAgent, reviewFlow, splitFlow } from '../../testing/catalog-fixtures';
import { pollRun, startRunStack, type RunBody, type RunStack } from '../../testing/test-runs';
import { startWebhookReceiver, type Received, type WebhookReceiver } from '../../testing/webhook-receiver';
import { startTestWebhookWorker } from '../../testing/webhook-worker';

// Webhooks through the real stack (docs/api.md#webhooks): the gateway, node
// workers and a webhook worker in this process, over PostgreSQL and Redis,
// delivering to real HTTP receivers on loopback. Retries follow a short
// schedule (300 ms, 600 ms: three attempts), and 127.0.0.1 is on the outbound
// allow list while the rest of 127.0.0.0/8 is not.

jest.setTimeout(60_000);

let stack: RunStack;
let receiver: WebhookReceiver;
let webhooks: { close(): Promise<void> };

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startRunStack({ CREDENTIALS_KEY: newKeyEntry() }), startWebhookReceiver()]);
  webhooks = await startTestWebhookWorker(stack.gw);
});
afterAll(async () => {
  await webhooks.close();
  await stack.close();
  await receiver.close();
});

interface Delivery {
  id: string;
  event: string;
  run_id: string;
  endpoint_id: string | null;
  url: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: { attempt: number; at: string; status_code: number | null; error: string | null; duration_ms: number }[];
  next_attempt_at: string | null;
  created_at: string;
}

interface Event {
  type: string;
  timestamp: string;
  data: RunBody & { node?: { id: string; status: string } };
}

const app = () => stack.gw.app;
const get = (apiKey: string, path: string) => request(app()).get(path).set('X-Api-Key', apiKey);
const post = (apiKey: string, path: string, body?: object) =>
  request(app()).post(path).set('X-Api-Key', apiKey).send(body);

async function orgWithAgent(flow = splitFlow()) {
  const { id, apiKey } = await stack.gw.createOrg();
  const agent = await postAgent(app(), apiKey, { flow });
  return { orgId: id, apiKey, agentId: agent.id };
}

async function startRun(
  apiKey: string,
  agentId: string,
  extra: object = {},
  inputs = [{ id: 'text', value: 'black\ngreen' }],
) {
  const res = await post(apiKey, '/runs', { agent_id: agentId, inputs, ...extra });
  expect(res.status).toBe(201);
  return res.body as RunBody;
}

async function deliveriesOf(apiKey: string, runId: string): Promise<Delivery[]> {
  const res = await get(apiKey, `/webhook-deliveries?run_id=${runId}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.data as Delivery[];
}

/** Waits until every delivery of the run has settled; returns them. */
function settled(apiKey: string, runId: string, count: number, timeoutMs = 15_000) {
  return waitFor(
    `${count} deliveries of run ${runId} to settle`,
    async () => {
      const list = await deliveriesOf(apiKey, runId);
      return list.length === count && list.every((d) => d.status !== 'pending') && list;
    },
    { timeoutMs, intervalMs: 50 },
  );
}

const headersOf = (r: Received) => r.headers as Record<string, string>;

/** Events in the order they happened: by timestamp, and within one commit node, review, completed. */
const RANK: Record<string, number> = { 'run.start': 0, 'run.node': 1, 'run.review': 2, 'run.completed': 3 };
const inOrder = (events: Event[]) =>
  [...events].sort((a, b) => a.timestamp.localeCompare(b.timestamp) || RANK[a.type]! - RANK[b.type]!);

test("a run's own webhook gets exactly one completed event by default, signed with the organization's secret", async () => {
  const { apiKey, agentId } = await orgWithAgent();
  const run = await startRun(apiKey, agentId, { webhook: receiver.url('/own') });
  await pollRun(stack.gw, apiKey, `/runs/${run.id}`);
  const [delivery] = await settled(apiKey, run.id, 1);
  expect(delivery).toMatchObject({
    event: 'completed',
    status: 'succeeded',
    endpoint_id: null,
    url: receiver.url('/own'),
  });
  expect(delivery!.attempts).toEqual([
    { attempt: 1, at: expect.any(String), status_code: 200, error: null, duration_ms: expect.any(Number) },
  ]);

  const secret = await get(apiKey, '/webhooks/secret');
  expect(secret.status).toBe(200);
  expect(secret.body.key).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  // The secret is made once: asking again gives the same.
  expect((await get(apiKey, '/webhooks/secret')).body.key).toBe(secret.body.key);

  const got = receiver.on('/own');
  expect(got).toHaveLength(1);
  expect(headersOf(got[0]!)['webhook-id']).toBe(delivery!.id);
  expect(headersOf(got[0]!)['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  const event = new Webhook(secret.body.key as string).verify(got[0]!.body, headersOf(got[0]!)) as Event;
  const record = await get(apiKey, `/runs/${run.id}`);
  expect(event).toEqual({ type: 'run.completed', timestamp: expect.any(String), data: record.body });
  expect(event.data).toMatchObject({
    status: 'completed',
    results: [{ id: 'lines' }, { id: 'first', value: 'black' }],
  });
  // Another secret does not verify it.
  const other = await stack.gw.createOrg();
  const otherKey = (await get(other.apiKey, '/webhooks/secret')).body.key as string;
  expect(() => new Webhook(otherKey).verify(got[0]!.body, headersOf(got[0]!))).toThrow();
});

test('every event of a run with a review, in the order the run went through them, and nothing else', async () => {
  const { apiKey, agentId } = await orgWithAgent(reviewFlow());
  const run = await startRun(
    apiKey,
    agentId,
    { webhook: receiver.url('/all'), webhook_events_filter: ['completed', 'review', 'start', 'node', 'node'] },
    [{ id: 'topic', value: 'tea' }],
  );
  const parked = await pollRun(stack.gw, apiKey, `/runs/${run.id}`, (r) => r.awaiting_human_review === true);
  const [review] = parked.pending_reviews as { id: string; proposed_output: object }[];
  const decided = await post(apiKey, `/runs/${run.id}/reviews/${review!.id}`, {
    decision: 'approve',
    output: review!.proposed_output,
  });
  expect(decided.status).toBe(204);
  await pollRun(stack.gw, apiKey, `/runs/${run.id}`);
  const deliveries = await settled(apiKey, run.id, 8);
  expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true);

  const { key } = (await get(apiKey, '/webhooks/secret')).body as { key: string };
  const got = receiver.on('/all');
  const events = inOrder(got.map((r) => new Webhook(key).verify(r.body, headersOf(r)) as Event));
  expect(events.map((e) => e.type)).toEqual([
    'run.start',
    'run.node',
    'run.node',
    'run.node',
    'run.node',
    'run.review',
    'run.node',
    'run.completed',
  ]);
  const nodes = events.filter((e) => e.type === 'run.node').map((e) => `${e.data.node!.id}:${e.data.node!.status}`);
  expect(nodes.slice(0, 4).sort()).toEqual([
    'check:waiting_review',
    'join:completed',
    'tone:completed',
    'topic:completed',
  ]);
  expect(nodes[4]).toBe('check:completed');
  expect(events.every((e) => e.data.id === run.id)).toBe(true);
  expect(events.at(-1)!.data).toEqual((await get(apiKey, `/runs/${run.id}`)).body);
  expect(events.at(-1)!.data.status).toBe('completed');
  // One request per delivery: ids are the deliveries', none repeated, none invented.
  expect(got.map((r) => headersOf(r)['webhook-id']).sort()).toEqual(deliveries.map((d) => d.id).sort());
});

test('canceled, failed and unfunded runs report how they ended; app runs report as app runs', async () => {
  const { apiKey, agentId } = await orgWithAgent(reviewFlow());
  const { key } = (await get(apiKey, '/webhooks/secret')).body as { key: string };
  const events = (path: string) =>
    inOrder(receiver.on(path).map((r) => new Webhook(key).verify(r.body, headersOf(r)) as Event));
  const all = ['start', 'node', 'review', 'completed'];

  const parked = await startRun(apiKey, agentId, { webhook: receiver.url('/canceled'), webhook_events_filter: all }, [
    { id: 'topic', value: 'tea' },
  ]);
  await pollRun(stack.gw, apiKey, `/runs/${parked.id}`, (r) => r.awaiting_human_review === true);
  expect((await request(app()).delete(`/runs/${parked.id}`).set('X-Api-Key', apiKey)).status).toBe(204);
  await settled(apiKey, parked.id, 7);
  const canceled = events('/canceled');
  expect(canceled.map((e) => e.type)).toEqual([
    'run.start',
    ...Array(4).fill('run.node'),
    'run.review',
    'run.completed',
  ]);
  expect(canceled.at(-1)!.data).toMatchObject({ status: 'canceled', failure_reason: 'canceled' });

  const failing = await postAgent(app(), apiKey, {
    flow: {
      nodes: [
        { id: 'text', type: 'text_input' },
        { id: 'lines', type: 'text_split', inputs: { text: 'text' } },
        { id: 'pick', type: 'list_selector', params: { index: 5 }, inputs: { list: 'lines' } },
      ],
      outputs: [],
    },
  });
  const failed = await startRun(apiKey, failing.id, { webhook: receiver.url('/failed'), webhook_events_filter: all });
  await settled(apiKey, failed.id, 5);
  const failure = events('/failed');
  expect(failure.map((e) => [e.type, e.data.node ? `${e.data.node.id}:${e.data.node.status}` : null])).toEqual([
    ['run.start', null],
    ['run.node', 'text:completed'],
    ['run.node', 'lines:completed'],
    ['run.node', 'pick:failed'],
    ['run.completed', null],
  ]);
  expect(failure.at(-1)!.data).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });

  const costly = await postAgent(app(), apiKey, { estimated_cost: 1_000_000 });
  const unfunded = await startRun(apiKey, costly.id, {
    webhook: receiver.url('/unfunded'),
    webhook_events_filter: all,
  });
  expect(unfunded.status).toBe('failed');
  await settled(apiKey, unfunded.id, 2);
  expect(events('/unfunded').map((e) => [e.type, e.data.status, e.data.failure_reason])).toEqual([
    ['run.start', 'failed', 'insufficient_credits'],
    ['run.completed', 'failed', 'insufficient_credits'],
  ]);

  const created = await post(apiKey, '/apps', {
    name: 'Split',
    description: 'd',
    agent_id: (await postAgent(app(), apiKey)).id,
    inputs: [{ id: 'text', type: 'text', name: 'Text', required: true }],
    outputs: [{ id: 'first', type: 'text', description: 'The first line' }],
  });
  expect(created.status).toBe(201);
  const appRun = await post(apiKey, '/app-runs', {
    app_id: created.body.id,
    inputs: [{ id: 'text', value: 'one\ntwo' }],
    webhook: receiver.url('/app-run'),
  });
  expect(appRun.status).toBe(201);
  await settled(apiKey, appRun.body.id as string, 1);
  const [appEvent] = events('/app-run');
  expect(appEvent!.data).toEqual((await get(apiKey, `/app-runs/${appRun.body.id}`)).body);
  expect(appEvent!.data).toMatchObject({ app_id: created.body.id, status: 'completed' });
  expect(appEvent!.data).not.toHaveProperty('agent_id');
});

test("an endpoint gets the events of every run of its organization, never another's; deleting it stops them", async () => {
  const a = await orgWithAgent();
  const b = await orgWithAgent();
  const created = await post(a.apiKey, '/webhook-endpoints', {
    url: receiver.url('/endpoint-a'),
    events: ['start', 'completed'],
  });
  expect(created.status).toBe(201);
  expect(created.body).toEqual({
    id: expect.any(String),
    url: receiver.url('/endpoint-a'),
    events: ['start', 'completed'],
    secret: expect.stringMatching(/^whsec_/),
    created_at: expect.any(String),
  });
  const endpointId = created.body.id as string;
  const listed = await get(a.apiKey, '/webhook-endpoints');
  expect(listed.body).toEqual({
    data: [
      {
        id: endpointId,
        url: receiver.url('/endpoint-a'),
        events: ['start', 'completed'],
        created_at: expect.any(String),
      },
    ],
    has_more: false,
    next_cursor: null,
  });

  const runs = [await startRun(a.apiKey, a.agentId), await startRun(a.apiKey, a.agentId)];
  const stranger = await startRun(b.apiKey, b.agentId, { webhook: receiver.url('/endpoint-b-own') });
  for (const r of runs) await settled(a.apiKey, r.id, 2);
  await settled(b.apiKey, stranger.id, 1);
  const got = receiver
    .on('/endpoint-a')
    .map((r) => new Webhook(created.body.secret as string).verify(r.body, headersOf(r)) as Event);
  expect(got.map((e) => `${e.data.id} ${e.type}`).sort()).toEqual(
    runs.flatMap((r) => [`${r.id} run.completed`, `${r.id} run.start`]).sort(),
  );
  const page = await get(a.apiKey, `/webhook-endpoints/${endpointId}/deliveries`);
  expect(page.status).toBe(200);
  expect(page.body.data).toHaveLength(4);
  expect((page.body.data as Delivery[]).every((d) => d.endpoint_id === endpointId && d.status === 'succeeded')).toBe(
    true,
  );

  // Another organization's endpoint and deliveries answer like missing ones.
  const missing = '00000000-0000-7000-8000-000000000000';
  const deliveryId = (page.body.data as Delivery[])[0]!.id;
  for (const path of [`/webhook-endpoints/${endpointId}`, `/webhook-endpoints/${missing}`]) {
    const res = await get(b.apiKey, path);
    expect([res.status, res.body]).toEqual([404, { detail: 'Webhook endpoint not found' }]);
  }
  expect((await get(b.apiKey, `/webhook-endpoints/${endpointId}/deliveries`)).status).toBe(404);
  expect((await get(b.apiKey, `/webhook-deliveries/${deliveryId}`)).body).toEqual({
    detail: 'Webhook delivery not found',
  });
  expect((await post(b.apiKey, `/webhook-deliveries/${deliveryId}/resend`)).status).toBe(404);
  expect((await request(app()).delete(`/webhook-endpoints/${endpointId}`).set('X-Api-Key', b.apiKey)).status).toBe(404);
  expect((await get(b.apiKey, `/webhook-deliveries?run_id=${runs[0]!.id}`)).body.data).toEqual([]);

  // An endpoint deleted while its delivery waits for a worker: the delivery is never attempted.
  await webhooks.close();
  const doomed = await post(a.apiKey, '/webhook-endpoints', {
    url: receiver.url('/endpoint-gone'),
    events: ['completed'],
  });
  const run = await startRun(a.apiKey, a.agentId);
  await pollRun(stack.gw, a.apiKey, `/runs/${run.id}`);
  const [waiting] = (await get(a.apiKey, `/webhook-endpoints/${doomed.body.id}/deliveries`)).body.data as Delivery[];
  expect(waiting).toMatchObject({ run_id: run.id, event: 'completed', status: 'pending', attempts: [] });
  expect((await request(app()).delete(`/webhook-endpoints/${doomed.body.id}`).set('X-Api-Key', a.apiKey)).status).toBe(
    204,
  );
  expect((await get(a.apiKey, `/webhook-endpoints/${doomed.body.id}`)).status).toBe(404);
  expect((await get(a.apiKey, `/webhook-deliveries/${waiting!.id}`)).status).toBe(404);
  webhooks = await startTestWebhookWorker(stack.gw);
  const connection = new Redis(stack.gw.config.REDIS_URL!);
  const queue = new Queue(WEBHOOK_QUEUE, { connection, prefix: stack.gw.config.REDIS_PREFIX });
  try {
    const jobId = deliverWebhookJobId({ deliveryId: waiting!.id, attempt: 0 });
    await waitFor('the queued attempt to be taken', async () => !(await queue.getJob(jobId)));
  } finally {
    await queue.close();
    connection.disconnect();
  }
  expect(receiver.on('/endpoint-gone')).toEqual([]);

  // Runs started after the endpoint went get nothing for it.
  const later = await startRun(a.apiKey, a.agentId);
  await settled(a.apiKey, later.id, 2);
  expect((await deliveriesOf(a.apiKey, later.id)).map((d) => d.endpoint_id)).toEqual([endpointId, endpointId]);
});

test('a receiver answering 500 is retried on the schedule; one that never answers 2xx fails; resend sends it again', async () => {
  const { apiKey, agentId } = await orgWithAgent();
  receiver.answer('/flaky', (n) => ({ status: n < 2 ? 500 : 204 }));
  const flaky = await startRun(apiKey, agentId, { webhook: receiver.url('/flaky') });
  const between = await waitFor('a failed attempt with a retry pending', async () => {
    const [d] = await deliveriesOf(apiKey, flaky.id);
    return d && d.attempts.length >= 1 && d.status === 'pending' && d;
  });
  const last = between.attempts.at(-1)!;
  expect(last).toMatchObject({ status_code: 500, error: 'The receiver answered 500' });
  // The next attempt waits its turn: 300 ms, then 600 ms, each ±20 %.
  const wait = Date.parse(between.next_attempt_at!) - Date.parse(last.at);
  expect(wait).toBeGreaterThanOrEqual(last.attempt === 1 ? 240 : 480);
  expect(wait).toBeLessThan(last.attempt === 1 ? 360 + 1000 : 720 + 1000);
  const [done] = await settled(apiKey, flaky.id, 1);
  expect(done!.status).toBe('succeeded');
  expect(done!.attempts.map((a) => [a.attempt, a.status_code])).toEqual([
    [1, 500],
    [2, 500],
    [3, 204],
  ]);
  expect(done!.next_attempt_at).toBeNull();
  // Every attempt sends the same id and the same bytes.
  const sent = receiver.on('/flaky');
  expect(new Set(sent.map((r) => headersOf(r)['webhook-id']))).toEqual(new Set([done!.id]));
  expect(new Set(sent.map((r) => r.body)).size).toBe(1);

  receiver.answer('/down', { status: 503 });
  const down = await startRun(apiKey, agentId, { webhook: receiver.url('/down') });
  const [failed] = await settled(apiKey, down.id, 1);
  expect(failed).toMatchObject({ status: 'failed', next_attempt_at: null });
  expect(failed!.attempts.map((a) => a.status_code)).toEqual([503, 503, 503]);
  expect(receiver.on('/down')).toHaveLength(3);

  receiver.answer('/down', { status: 200 });
  const resent = await post(apiKey, `/webhook-deliveries/${failed!.id}/resend`);
  expect(resent.status).toBe(202);
  expect(resent.body).toMatchObject({ id: failed!.id, status: 'pending' });
  const [again] = await settled(apiKey, down.id, 1);
  expect(again).toMatchObject({ status: 'succeeded' });
  expect(again!.attempts.map((a) => a.status_code)).toEqual([503, 503, 503, 200]);
  expect(receiver.on('/down').map((r) => headersOf(r)['webhook-id'])).toEqual(Array(4).fill(failed!.id));
  // A pending delivery is not resent; a succeeded one may be.
  expect((await post(apiKey, `/webhook-deliveries/${failed!.id}/resend`)).status).toBe(202);
  await settled(apiKey, down.id, 1);
  expect(receiver.on('/down')).toHaveLength(5);
});

test('a webhook to an address the outbound rules refuse fails saying why, redirects included; the run is unaffected', async () => {
  const privateReceiver = await startWebhookReceiver('127.0.0.2');
  try {
    const { apiKey, agentId } = await orgWithAgent();
    const direct = await startRun(apiKey, agentId, { webhook: privateReceiver.url('/private') });
    receiver.answer('/redirect', { status: 307, headers: { location: privateReceiver.url('/private') } });
    const redirected = await startRun(apiKey, agentId, { webhook: receiver.url('/redirect') });
    for (const run of [direct, redirected]) {
      expect(await pollRun(stack.gw, apiKey, `/runs/${run.id}`)).toMatchObject({ status: 'completed' });
      const [d] = await settled(apiKey, run.id, 1);
      expect(d!.status).toBe('failed');
      expect(d!.attempts.map((a) => [a.status_code, a.error])).toEqual(
        Array(3).fill([null, 'Refused: 127.0.0.2 is a loopback address, which webhooks may not reach']),
      );
    }
    expect(privateReceiver.received).toEqual([]);
    expect(receiver.on('/redirect')).toHaveLength(3);
  } finally {
    await privateReceiver.close();
  }
});

test('a slow receiver delays neither the run nor another receiver', async () => {
  const { apiKey, agentId } = await orgWithAgent();
  receiver.answer('/slow', { status: 200, delayMs: 10_000 });
  const slow = await startRun(apiKey, agentId, {
    webhook: receiver.url('/slow'),
    webhook_events_filter: ['start', 'node', 'completed'],
  });
  await waitFor('the slow receiver to hold a delivery', () => receiver.holding > 0);
  const fast = await startRun(apiKey, agentId, { webhook: receiver.url('/fast') });
  expect(await pollRun(stack.gw, apiKey, `/runs/${slow.id}`)).toMatchObject({ status: 'completed' });
  await waitFor('the fast receiver to get its event', () => receiver.on('/fast').length === 1);
  // The slow receiver still holds its requests: nothing above waited for it.
  expect(receiver.holding).toBeGreaterThan(0);
  expect(await deliveriesOf(apiKey, fast.id)).toMatchObject([{ status: 'succeeded' }]);
  const slowDeliveries = await settled(apiKey, slow.id, 5, 30_000);
  expect(slowDeliveries.every((d) => d.status === 'succeeded')).toBe(true);
});

test('bad webhooks and endpoints are refused with 422 saying what was expected and where', async () => {
  const { apiKey, agentId } = await orgWithAgent();
  const run = (extra: object) =>
    post(apiKey, '/runs', { agent_id: agentId, inputs: [{ id: 'text', value: 'x' }], ...extra });
  const cases: [object, (string | number)[], string][] = [
    [{ webhook: 'ftp://example.com/x' }, ['body', 'webhook'], 'Expected an http or https URL'],
    [{ webhook: 'not a url' }, ['body', 'webhook'], 'Expected an http or https URL'],
    [
      { webhook: `https://example.com/${'a'.repeat(2048)}` },
      ['body', 'webhook'],
      'Expected a URL of at most 2048 characters',
    ],
    [
      { webhook: 'https://example.com', webhook_events_filter: [] },
      ['body', 'webhook_events_filter'],
      'Expected at least one of start, node, review, completed',
    ],
    [
      { webhook_events_filter: ['completed'] },
      ['body', 'webhook_events_filter'],
      'webhook_events_filter is only taken with a webhook',
    ],
  ];
  for (const [extra, loc, msg] of cases) {
    const res = await run(extra);
    expect([res.status, res.body.detail?.[0]?.loc, res.body.detail?.[0]?.msg]).toEqual([422, loc, msg]);
  }
  const bogus = await run({ webhook: 'https://example.com', webhook_events_filter: ['finished'] });
  expect([bogus.status, bogus.body.detail[0].loc]).toEqual([422, ['body', 'webhook_events_filter', 0]]);

  const endpoint = await post(apiKey, '/webhook-endpoints', { url: 'mailto:x@example.com', events: [] });
  expect(endpoint.status).toBe(422);
  expect((endpoint.body.detail as { loc: unknown[] }[]).map((d) => d.loc)).toEqual([
    ['body', 'url'],
    ['body', 'events'],
  ]);
  const noEvents = await post(apiKey, '/webhook-endpoints', { url: 'https://example.com/hook' });
  expect([noEvents.status, noEvents.body.detail[0].loc, noEvents.body.detail[0].type]).toEqual([
    422,
    ['body', 'events'],
    'missing',
  ]);
  expect((await get(apiKey, '/webhook-deliveries?run_id=nope')).status).toBe(422);
  expect((await get(apiKey, '/webhook-endpoints?cursor=nope')).status).toBe(422);
  // Nothing was created by any of them.
  expect((await get(apiKey, '/runs')).body.data).toEqual([]);
  expect((await get(apiKey, '/webhook-endpoints')).body.data).toEqual([]);
});

test('without CREDENTIALS_KEY the deployment signs no webhooks: 503 saying why, nothing created', async () => {
  const keyless = await stack.gw.startSibling({ CREDENTIALS_KEY: '' });
  try {
    const { apiKey, agentId } = await orgWithAgent();
    const why = 'This deployment sends no webhooks: its operator has not set CREDENTIALS_KEY';
    const calls = [
      request(keyless.app)
        .post('/webhook-endpoints')
        .set('X-Api-Key', apiKey)
        .send({ url: 'https://example.com', events: ['completed'] }),
      request(keyless.app).get('/webhooks/secret').set('X-Api-Key', apiKey),
      request(keyless.app)
        .post('/runs')
        .set('X-Api-Key', apiKey)
        .send({ agent_id: agentId, inputs: [{ id: 'text', value: 'x' }], webhook: 'https://example.com' }),
    ];
    for (const res of await Promise.all(calls)) expect([res.status, res.body]).toEqual([503, { detail: why }]);
    expect((await get(apiKey, '/runs')).body.data).toEqual([]);
  } finally {
    await keyless.close();
  }
});
