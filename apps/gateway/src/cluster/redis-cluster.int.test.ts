import type { Flow } from '@weft/contracts';
import { newKeyEntry } from '@weft/credentials';
import { isCluster, mastersOf, queueShards, scanKeys } from '@weft/queue';
import type { Cluster } from 'ioredis';
import { startRedisCluster, waitFor, type TestRedisCluster } from '@weft/testing';
import request from 'supertest';
import { postAgent, reviewFlow } from '../testing/catalog-fixtures';
import { baseUrl, openEventStream, type StreamEvent } from '../testing/event-stream';
import { startFakeProvider, type FakeProvider } from '../testing/fake-provider';
import { startTestGateway, type TestGateway } from '../testing/test-gateway';
import { pollRun, type RunBody } from '../testing/test-runs';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver';
import { servicesEnvOf, startWorkerProcess, type WorkerProcess } from '../testing/worker-process';

// The stack on a Redis Cluster (docs/operations.md#redis-cluster): a
// three-master cluster of redis-server processes of this file's own, the
// gateway in this process and a real worker process, both given only
// REDIS_CLUSTER_NODES. Runs with provider calls, a review, an event stream, a
// cancel and webhooks go through it as they do on one Redis.

jest.setTimeout(90_000);

const KEY = newKeyEntry();

let cluster: TestRedisCluster;
let provider: FakeProvider;
let receiver: WebhookReceiver;
let gw: TestGateway;
let worker: WorkerProcess;
let apiKey: string;
let gates = 0;

beforeAll(async () => {
  [cluster, provider, receiver] = await Promise.all([startRedisCluster(), startFakeProvider(), startWebhookReceiver()]);
  // REDIS_URL unset: the shared test Redis is not used at all.
  gw = await startTestGateway({
    REDIS_URL: '',
    REDIS_CLUSTER_NODES: cluster.nodesEnv,
    CREDENTIALS_KEY: KEY,
    METRICS_CLUSTER_CACHE_MS: '0',
  });
  worker = startWorkerProcess({
    ...servicesEnvOf(gw.config),
    // The gateway's prefix is the hash-tagged one; the worker is given the setting as a user writes it.
    REDIS_PREFIX: gw.config.REDIS_PREFIX.replace(/[{}]/g, ''),
    CREDENTIALS_KEY: KEY,
    OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_RETRY_SCHEDULE: '300ms,600ms',
    WEBHOOK_SWEEP_INTERVAL_MS: '500',
    RECONCILE_INTERVAL_MS: '500',
    WORKER_HEARTBEAT_INTERVAL_MS: '1000',
  });
  await worker.ready;
  ({ apiKey } = await gw.createOrg('Cluster org', 1000));
});
afterAll(async () => {
  if (worker && worker.child.exitCode === null) {
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
  await gw?.close();
  await Promise.all([cluster?.stop(), provider?.close(), receiver?.close()]);
});

function newGate(): { url: string; open(): void } {
  const name = `cluster-gate-${++gates}`;
  return { url: provider.url(`/gate?name=${name}`), open: () => provider.openGate(name) };
}

/** topic → ask (a provider call, held at `url` when it is a gate) → join. */
const providerFlow = (url: string): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'ask', type: 'generic_provider', params: { url }, inputs: { prompt: 'topic' } },
    { id: 'join', type: 'prompt_concatenate', params: { separator: ' / ' }, inputs: { parts: ['topic', 'ask'] } },
  ],
  outputs: [{ id: 'join', type: 'text', description: 'The answer' }],
});

async function startRun(flow: Flow, extra: object = {}, key = apiKey): Promise<string> {
  const agent = await postAgent(gw.app, key, { flow });
  const res = await request(gw.app)
    .post('/runs')
    .set('X-Api-Key', key)
    .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: 'tea' }], ...extra });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

test('runs with provider calls complete on the worker', async () => {
  expect(isCluster(gw.deps.redis)).toBe(true);
  expect(gw.config.REDIS_PREFIX).toMatch(/^\{[^{}]+\}$/);
  const ids = await Promise.all([1, 2, 3, 4].map(() => startRun(providerFlow(provider.url('/ok')))));
  for (const id of ids) {
    const done = await pollRun(gw, apiKey, `/runs/${id}`);
    expect(done).toMatchObject({ status: 'completed', progress: 1 });
    expect(done.results).toEqual([
      { id: 'join', type: 'text', value: expect.stringMatching(/^tea \/ echo:/), description: 'The answer' },
    ]);
  }
});

test('a review parks the run; approve continues with the given output', async () => {
  const runId = await startRun(reviewFlow());
  const parked = await pollRun(gw, apiKey, `/runs/${runId}`, (r) => r.awaiting_human_review === true);
  const [review] = parked.pending_reviews as { id: string }[];
  const res = await request(gw.app)
    .post(`/runs/${runId}/reviews/${review!.id}`)
    .set('X-Api-Key', apiKey)
    .send({ decision: 'approve', output: { prompts: ['edited'] } });
  expect(res.status).toBe(204);
  const done = await pollRun(gw, apiKey, `/runs/${runId}`);
  expect(done).toMatchObject({ status: 'completed', results: [{ id: 'check', value: 'edited' }] });
});

test("a run's event stream follows it live: the worker's change messages reach the gateway", async () => {
  const gate = newGate();
  const runId = await startRun(providerFlow(gate.url));
  const stream = await openEventStream(baseUrl(gw.server), `/runs/${runId}/events`, { 'X-Api-Key': apiKey });
  try {
    expect(stream.status).toBe(200);
    const nodeEvent = (status: string) => (e: StreamEvent) =>
      e.event === 'node' && e.data.node_id === 'ask' && e.data.status === status;
    await stream.until('ask running', nodeEvent('running'));
    gate.open();
    await stream.until('ask completed', nodeEvent('completed'));
    expect(await stream.finished()).toBe('ended');
    expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: { id: runId, status: 'completed' } });
  } finally {
    stream.close();
  }
});

test('a cancel reaches the worker executing the node: the provider call is aborted', async () => {
  const slowCalls = () => provider.received.filter((r) => r.path === '/slow').length;
  const before = slowCalls();
  const aborted = provider.abortedSlow;
  const runId = await startRun(providerFlow(provider.url('/slow')));
  await waitFor('the provider call in flight', () => slowCalls() > before);
  expect((await request(gw.app).delete(`/runs/${runId}`).set('X-Api-Key', apiKey)).status).toBe(204);
  expect((await pollRun(gw, apiKey, `/runs/${runId}`)).status).toBe('canceled');
  await waitFor('the provider call aborted', () => provider.abortedSlow > aborted);
});

test("webhooks: the run's own webhook and an endpoint get their events, signed", async () => {
  const endpoint = await request(gw.app)
    .post('/webhook-endpoints')
    .set('X-Api-Key', apiKey)
    .send({ url: receiver.url('/endpoint'), events: ['completed'] });
  expect(endpoint.status).toBe(201);
  try {
    const runId = await startRun(providerFlow(provider.url('/ok')), { webhook: receiver.url('/own') });
    await pollRun(gw, apiKey, `/runs/${runId}`);
    const received = await waitFor('both deliveries', () => {
      const of = receiver.received.filter((r) => (JSON.parse(r.body) as { data?: RunBody }).data?.id === runId);
      return of.length >= 2 && of;
    });
    expect(received.map((r) => r.path).sort()).toEqual(['/endpoint', '/own']);
    for (const r of received) {
      expect(JSON.parse(r.body)).toMatchObject({ type: 'run.completed', data: { id: runId, status: 'completed' } });
      expect((r.headers as Record<string, string>)['webhook-signature']).toMatch(/^v1,/);
    }
  } finally {
    await request(gw.app).delete(`/webhook-endpoints/${endpoint.body.id}`).set('X-Api-Key', apiKey);
  }
});

test("the worker's heartbeat is seen over the masters (weft_workers)", async () => {
  await waitFor('weft_workers 1', async () => /^weft_workers 1$/m.test((await request(gw.app).get('/metrics')).text));
});

/** `host:port` of the master serving the slot of `key`. */
async function masterOf(key: string): Promise<string> {
  const redis = gw.deps.redis as Cluster;
  const slot = (await redis.cluster('KEYSLOT', key)) as number;
  const [, , [host, port] = []] = (await redis.cluster('SLOTS')).find(([from, to]) => slot >= from && slot <= to)!;
  return `${host}:${port}`;
}

test("the light lane's shards spread over the masters, and each organization's work runs on its shard's", async () => {
  const layout = queueShards(gw.config.REDIS_PREFIX, gw.config.REDIS_QUEUE_SHARDS);
  expect(layout.prefixes).toHaveLength(8);
  const masters = await Promise.all(layout.prefixes.map((p) => masterOf(`${p}:nodes-light:wait`)));
  expect(new Set(masters).size).toBeGreaterThan(1);

  // Organizations until two of them have their shards on different masters.
  const orgs: { apiKey: string; master: string }[] = [];
  while (new Set(orgs.map((o) => o.master)).size < 2) {
    expect(orgs.length).toBeLessThan(30);
    const org = await gw.createOrg(`Sharded ${orgs.length}`, 100);
    orgs.push({ apiKey: org.apiKey, master: await masterOf(`${layout.prefixOf(org.id)}:nodes-light:wait`) });
  }
  const picked = [orgs[0]!, orgs.find((o) => o.master !== orgs[0]!.master)!];
  const gate = newGate();
  const runs = await Promise.all(picked.map((org) => startRun(providerFlow(gate.url), {}, org.apiKey)));
  // While the provider holds both calls, each job is active on its organization's master.
  const busy = await waitFor('active light jobs on two masters', async () => {
    const found = new Set<string>();
    for (const node of mastersOf(gw.deps.redis)) {
      for (const key of await scanKeys(node, '*:nodes-light:active')) {
        if ((await node.llen(key)) > 0) found.add(`${node.options.host}:${node.options.port}`);
      }
    }
    return found.size >= 2 && found;
  });
  expect([...busy].sort()).toEqual(picked.map((o) => o.master).sort());
  gate.open();
  for (const [i, runId] of runs.entries()) {
    expect((await pollRun(gw, picked[i]!.apiKey, `/runs/${runId}`)).status).toBe('completed');
  }
});

test('the worker logged no Redis trouble (a cross-slot script, a wrong policy, a lost connection)', () => {
  const troubled = worker.lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 40);
  expect(troubled).toEqual([]);
});
