import { newKeyEntry } from '@weft/credentials';
import { waitFor } from '@weft/testing';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { postAgent, reviewFlow, splitFlow } from '../testing/catalog-fixtures';
import { baseUrl, openEventStream, type EventStreamClient } from '../testing/event-stream';
import { startTestGateway, type TestGateway } from '../testing/test-gateway';
import { pollRun, type RunBody } from '../testing/test-runs';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver';
import { servicesEnvOf, startWorkerProcess, type WorkerProcess } from '../testing/worker-process';

// The stack behind PgBouncer in transaction mode (docs/operations.md#pgbouncer): the
// gateway and a real worker process whose DATABASE_URL is the test run's PgBouncer
// (Debian's 1.18: no prepared statements, no session kept between transactions). One
// behaviour each of runs, reviews, event streams and webhooks goes through it.

jest.setTimeout(60_000);

const KEY = newKeyEntry();

let gw: TestGateway;
let worker: WorkerProcess;
let receiver: WebhookReceiver;
let apiKey: string;
const streams: EventStreamClient[] = [];

beforeAll(async () => {
  [gw, receiver] = await Promise.all([
    startTestGateway({ CREDENTIALS_KEY: KEY }, { pgbouncer: true }),
    startWebhookReceiver(),
  ]);
  worker = startWorkerProcess({
    ...servicesEnvOf(gw.config),
    CREDENTIALS_KEY: KEY,
    OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_SWEEP_INTERVAL_MS: '500',
  });
  [{ apiKey }] = await Promise.all([gw.createOrg('Pooled', 1000), worker.ready]);
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  if (worker) {
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
  await gw?.close();
  await receiver?.close();
});

const get = (path: string) => request(gw.app).get(path).set('X-Api-Key', apiKey);
const post = (path: string, body: object) => request(gw.app).post(path).set('X-Api-Key', apiKey).send(body);

async function startRun(flow = splitFlow(), inputs = [{ id: 'text', value: 'black\ngreen' }], extra: object = {}) {
  const agent = await postAgent(gw.app, apiKey, { flow });
  const res = await post('/runs', { agent_id: agent.id, inputs, ...extra });
  expect(res.status).toBe(201);
  return res.body as RunBody;
}

/** What the worker logged at error level or above: nothing, when every statement got through. */
const workerErrors = () =>
  worker.lines.filter((line) => {
    try {
      return (JSON.parse(line) as { level?: number }).level! >= 50;
    } catch {
      return false;
    }
  });

test('the gateway and the worker are configured through the bouncer', () => {
  expect(new URL(gw.config.DATABASE_URL).searchParams.get('pgbouncer')).toBe('true');
  expect(servicesEnvOf(gw.config).DATABASE_URL).toBe(gw.config.DATABASE_URL);
});

test('a run completes, and is read back alone and in a page of the list', async () => {
  const run = await startRun();
  const done = await pollRun(gw, apiKey, `/runs/${run.id}`);
  expect(done).toMatchObject({ status: 'completed', progress: 1 });
  expect(done.results).toEqual([
    expect.objectContaining({ id: 'lines', value: ['black', 'green'] }),
    expect.objectContaining({ id: 'first', value: 'black' }),
  ]);
  // List pages are the statements a direct connection prepares by name.
  for (let i = 0; i < 3; i++) {
    const page = await get('/runs?limit=5');
    expect(page.status).toBe(200);
    expect((page.body.data as RunBody[]).map((r) => r.id)).toContain(run.id);
  }
  expect(workerErrors()).toEqual([]);
});

test('a run parked on a review is followed live, approved, and its stream ends with the completed run', async () => {
  const run = await startRun(reviewFlow(), [{ id: 'topic', value: 'tea' }]);
  const parked = await pollRun(gw, apiKey, `/runs/${run.id}`, (r) => r.awaiting_human_review === true);
  const [review] = parked.pending_reviews as { id: string; proposed_output: { prompts: string[] } }[];
  expect(review!.proposed_output).toEqual({ prompts: ['tea / friendly'] });

  const stream = await openEventStream(baseUrl(gw.server), `/runs/${run.id}/events`, { 'X-Api-Key': apiKey });
  streams.push(stream);
  expect(stream.status).toBe(200);
  await stream.until('the run as it stands', (e) => e.event === 'run');

  const decided = await post(`/runs/${run.id}/reviews/${review!.id}`, {
    decision: 'approve',
    output: { prompts: ['tea, approved'] },
  });
  expect(decided.status).toBe(204);
  expect(await stream.finished()).toBe('ended');
  const last = stream.events.at(-1)!;
  expect(last.event).toBe('end');
  expect(last.data).toMatchObject({ id: run.id, status: 'completed', pending_reviews: [] });
  expect(last.data.results).toEqual([expect.objectContaining({ id: 'check', value: 'tea, approved' })]);
  expect(workerErrors()).toEqual([]);
});

test("a run's webhook is delivered once, signed with the organization's secret", async () => {
  const run = await startRun(splitFlow(), undefined, { webhook: receiver.url('/pooled') });
  await pollRun(gw, apiKey, `/runs/${run.id}`);
  const [delivery] = await waitFor(
    'the delivery to succeed',
    async () => {
      const list = (await get(`/webhook-deliveries?run_id=${run.id}`)).body.data as { status: string }[];
      return list.length === 1 && list[0]!.status === 'succeeded' && list;
    },
    { timeoutMs: 15_000, intervalMs: 50 },
  );
  expect(delivery).toMatchObject({ event: 'completed', status: 'succeeded' });

  const got = receiver.on('/pooled');
  expect(got).toHaveLength(1);
  const { key } = (await get('/webhooks/secret')).body as { key: string };
  const event = new Webhook(key).verify(got[0]!.body, got[0]!.headers as Record<string, string>);
  expect(event).toMatchObject({ type: 'run.completed', data: { id: run.id, status: 'completed' } });
  expect(workerErrors()).toEqual([]);
});
