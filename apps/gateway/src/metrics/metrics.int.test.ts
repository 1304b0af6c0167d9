import type { Flow } from '@weft/contracts';
import { parseExposition, type Exposition } from '@weft/metrics';
import { waitFor } from '@weft/testing';
import request from 'supertest';
import { postAgent, reviewFlow } from '../testing/catalog-fixtures';
import { startFakeProvider, type FakeProvider } from '../testing/fake-provider';
import { pollRun, startRunStack, type RunBody, type RunStack } from '../testing/test-runs';
import { servicesEnvOf, startWorkerProcess, type WorkerProcess } from '../testing/worker-process';

// /metrics of the gateway and of a real worker process while runs execute:
// the counters and histograms move with what happened, in the process where
// it happened (runs start in the gateway, most end in workers; cancels and
// review decisions end them in the gateway).

// A worker process started from source in beforeAll: tens of seconds on a busy machine.
jest.setTimeout(120_000);

let stack: RunStack;
let provider: FakeProvider;
let worker: WorkerProcess;
let workerPort: number;
let org: { id: string; apiKey: string };

const providerFlow = (url: string, cost: number): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'call', type: 'generic_provider', params: { url, cost }, inputs: { prompt: 'topic' } },
  ],
  outputs: [{ id: 'call', type: 'text', description: 'Provider answer' }],
});

beforeAll(async () => {
  // No in-process worker: node jobs run in the worker process, whose /metrics is read over HTTP.
  [stack, provider] = await Promise.all([startRunStack({ METRICS_CLUSTER_CACHE_MS: '0' }, false), startFakeProvider()]);
  org = await stack.gw.createOrg('Measured', 1000);
  const c = stack.gw.config;
  worker = startWorkerProcess({
    ...servicesEnvOf(c),
    DATABASE_POOL_SIZE: '4',
    OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
    WORKER_HEARTBEAT_INTERVAL_MS: '500',
  });
  [workerPort] = await Promise.all([worker.httpPort, worker.ready]);
});

afterAll(async () => {
  if (worker && worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGTERM');
  await worker?.exited;
  await stack?.close();
  await provider?.close();
});

async function gatewayMetrics(app = stack.gw.app): Promise<Exposition> {
  const res = await request(app).get('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(res.text);
}

async function workerGet(path: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${workerPort}${path}`);
}

async function workerMetrics(): Promise<Exposition> {
  const res = await workerGet('/metrics');
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

async function startRun(agentId: string, topic = 'metrics'): Promise<RunBody> {
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agentId, inputs: [{ id: 'topic', value: topic }] });
  expect(res.status).toBe(201);
  return res.body as RunBody;
}

test('runs executed by a worker process move run, credit, job and HTTP metrics where they happen', async () => {
  const ok = await postAgent(stack.gw.app, org.apiKey, {
    flow: providerFlow(provider.url('/ok'), 3),
    estimated_cost: 5,
  });
  const failing = await postAgent(stack.gw.app, org.apiKey, {
    flow: providerFlow(provider.url('/unauthorized'), 3),
    estimated_cost: 5,
  });
  const [gwBefore, wBefore] = await Promise.all([gatewayMetrics(), workerMetrics()]);

  const completed = await startRun(ok.id);
  const failed = await startRun(failing.id);
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${completed.id}`);
  const broken = await pollRun(stack.gw, org.apiKey, `/runs/${failed.id}`);
  expect(done).toMatchObject({ status: 'completed', cost: 3 });
  expect(broken).toMatchObject({ status: 'failed', failure_reason: 'provider_auth_required', cost: 0 });

  // The worker counts after its commit; the run is visible as ended at that commit, so allow it a moment.
  const wAfter = await waitFor('the worker to count both ended runs', async () => {
    const m = await workerMetrics();
    const ended = m.value('weft_runs_ended_total', { kind: 'agent' }) - wBefore.value('weft_runs_ended_total');
    return ended >= 2 ? m : undefined;
  });
  const gwAfter = await gatewayMetrics();
  const delta = (after: Exposition, before: Exposition, name: string, labels?: Record<string, string>) =>
    after.value(name, labels) - before.value(name, labels);

  expect(delta(gwAfter, gwBefore, 'weft_runs_started_total', { kind: 'agent' })).toBe(2);
  expect(delta(gwAfter, gwBefore, 'weft_credits_reserved_total')).toBe(10);
  expect(
    delta(wAfter, wBefore, 'weft_runs_ended_total', { kind: 'agent', status: 'completed', failure_reason: 'none' }),
  ).toBe(1);
  expect(
    delta(wAfter, wBefore, 'weft_runs_ended_total', {
      kind: 'agent',
      status: 'failed',
      failure_reason: 'provider_auth_required',
    }),
  ).toBe(1);
  // Charged: what the completed run cost; released: the rest of both reservations.
  expect(delta(wAfter, wBefore, 'weft_credits_charged_total')).toBe(3);
  expect(delta(wAfter, wBefore, 'weft_credits_released_total')).toBe(2 + 5);

  // One job per node of each run, timed per queue and node type.
  const light = (type: string) => ({ queue: 'nodes-light', node_type: type });
  expect(delta(wAfter, wBefore, 'weft_job_processing_seconds_count', light('generic_provider'))).toBe(2);
  expect(delta(wAfter, wBefore, 'weft_job_processing_seconds_count', light('text_input'))).toBe(2);
  expect(delta(wAfter, wBefore, 'weft_job_wait_seconds_count', light('generic_provider'))).toBe(2);
  expect(wAfter.value('weft_job_processing_seconds_sum', light('generic_provider'))).toBeGreaterThan(0);
  expect(
    wAfter.value('weft_job_processing_seconds_bucket', { ...light('generic_provider'), le: '+Inf' }),
  ).toBeGreaterThanOrEqual(2);

  // HTTP durations by route template, never by URL.
  const http = (method: string, route: string, status: string) => ({ method, route, status });
  expect(delta(gwAfter, gwBefore, 'weft_http_request_duration_seconds_count', http('POST', '/runs', '201'))).toBe(2);
  expect(
    delta(gwAfter, gwBefore, 'weft_http_request_duration_seconds_count', http('GET', '/runs/:run_id', '200')),
  ).toBeGreaterThanOrEqual(2);
  expect(gwAfter.samples.some((s) => s.labels.route?.includes(completed.id))).toBe(false);

  // Process metrics, unprefixed, on both.
  for (const m of [gwAfter, wAfter]) {
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(m.seriesNames()).toContain(name);
    }
  }
});

test('the gateway exposes cluster-wide queue, run and worker gauges', async () => {
  const m = await waitFor('the worker heartbeat in weft_workers', async () => {
    const scraped = await gatewayMetrics();
    return scraped.value('weft_workers') === 1 ? scraped : undefined;
  });
  for (const queue of ['nodes-light', 'nodes-heavy', 'assets']) {
    for (const state of ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized']) {
      expect(m.samples).toContainEqual({
        name: 'weft_queue_jobs',
        labels: { queue, state },
        value: expect.any(Number),
      });
    }
  }
  for (const name of ['weft_runs_in_progress', 'weft_runs_awaiting_review', 'weft_runs_stalled']) {
    expect(m.samples).toContainEqual({ name, labels: {}, value: expect.any(Number) });
  }
});

test('the gateway exposes its upload memory and SVG tracer as per-instance gauges', async () => {
  const release = await stack.gw.deps.uploadMemory.acquire(12_345);
  try {
    const m = await gatewayMetrics();
    expect(m.value('weft_upload_memory_reserved_bytes')).toBe(12_345);
    expect(m.value('weft_uploads_waiting')).toBe(0);
    expect(m.value('weft_svg_traces', { state: 'running' })).toBe(0);
    expect(m.value('weft_svg_traces', { state: 'waiting' })).toBe(0);
  } finally {
    release();
  }
  expect((await gatewayMetrics()).value('weft_upload_memory_reserved_bytes')).toBe(0);
});

test('a run parked on a review counts in weft_runs_awaiting_review until the decision ends it in the gateway', async () => {
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow: reviewFlow() });
  const before = await gatewayMetrics();
  const run = await startRun(agent.id, 'cats');
  const parked = await pollRun(stack.gw, org.apiKey, `/runs/${run.id}`, (r) => r.awaiting_human_review === true);
  const waiting = await gatewayMetrics();
  expect(waiting.value('weft_runs_awaiting_review')).toBe(before.value('weft_runs_awaiting_review') + 1);
  expect(waiting.value('weft_runs_in_progress')).toBe(before.value('weft_runs_in_progress') + 1);
  expect(waiting.value('weft_runs_stalled')).toBe(0);

  const review = (parked.pending_reviews as { id: string }[])[0]!;
  const decided = await request(stack.gw.app)
    .post(`/runs/${run.id}/reviews/${review.id}`)
    .set('X-Api-Key', org.apiKey)
    .send({ decision: 'approve', output: { prompts: ['dogs'] } });
  expect(decided.status).toBe(204);
  // The review node is the last one: approving completes the run in the gateway's transaction.
  const after = await gatewayMetrics();
  expect(after.value('weft_runs_awaiting_review')).toBe(before.value('weft_runs_awaiting_review'));
  expect(
    after.value('weft_runs_ended_total', { status: 'completed' }) -
      waiting.value('weft_runs_ended_total', { status: 'completed' }),
  ).toBe(1);
});

test('a cancel through the API is counted by the gateway with failure_reason canceled', async () => {
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow: providerFlow(provider.url('/slow'), 1) });
  const run = await startRun(agent.id);
  await pollRun(stack.gw, org.apiKey, `/runs/${run.id}`, (r) => r.current_node === 'generic_provider');
  const before = await gatewayMetrics();
  const canceled = await request(stack.gw.app).delete(`/runs/${run.id}`).set('X-Api-Key', org.apiKey);
  expect(canceled.status).toBe(204);
  const after = await gatewayMetrics();
  const labels = { kind: 'agent', status: 'canceled', failure_reason: 'canceled' };
  expect(after.value('weft_runs_ended_total', labels) - before.value('weft_runs_ended_total', labels)).toBe(1);
});

test('a 429 moves weft_rate_limit_rejections_total; /metrics itself is never limited', async () => {
  const strict = await stack.gw.startSibling({ RATE_LIMIT_DEFAULT_PER_MINUTE: '2', METRICS_CLUSTER_CACHE_MS: '0' });
  try {
    const { apiKey } = await stack.gw.createOrg('Limited');
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await request(strict.app).get('/agents').set('X-Api-Key', apiKey)).status);
    expect(statuses).toEqual([200, 200, 429]);
    // Far more scrapes than the limit, all answered.
    for (let i = 0; i < 4; i++) await gatewayMetrics(strict.app);
    const m = await gatewayMetrics(strict.app);
    expect(m.value('weft_rate_limit_rejections_total', { bucket: 'default' })).toBe(1);
    expect(m.value('weft_rate_limit_rejections_total', { bucket: 'create' })).toBe(0);
    expect(m.value('weft_rate_limit_rejections_total', { bucket: 'upload' })).toBe(0);
    expect(m.value('weft_http_request_duration_seconds_count', { route: '/agents', status: '429' })).toBe(1);
  } finally {
    await strict.close();
  }
});

test('requests that match no route share one label', async () => {
  await request(stack.gw.app).get('/no/such/path/12345');
  const m = await gatewayMetrics();
  expect(m.value('weft_http_request_duration_seconds_count', { route: 'unmatched', status: '404' })).toBeGreaterThan(0);
  expect(m.samples.some((s) => s.labels.route?.includes('12345'))).toBe(false);
});

test('with METRICS_TOKEN set, /metrics wants it as a Bearer token', async () => {
  const token = 'metrics-token-0123456789';
  const guarded = await stack.gw.startSibling({ METRICS_TOKEN: token });
  try {
    expect((await request(guarded.app).get('/metrics')).status).toBe(401);
    expect((await request(guarded.app).get('/metrics').set('Authorization', 'Bearer wrong-token-000000')).status).toBe(
      401,
    );
    const res = await request(guarded.app).get('/metrics').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('weft_runs_started_total');
  } finally {
    await guarded.close();
  }
});

test('the worker answers its probes', async () => {
  expect(await (await workerGet('/healthz')).json()).toEqual({ status: 'ok' });
  const ready = await workerGet('/readyz');
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual({
    status: 'ok',
    checks: { database: 'ok', redis: 'ok', storage: 'ok', redis_policy: 'ok', processors: 'ok' },
  });
  expect((await workerGet('/nope')).status).toBe(404);
});
