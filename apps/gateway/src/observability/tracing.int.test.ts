import type { Flow } from '@weft/contracts';
import { createTestEnv, waitFor, type TestEnv } from '@weft/testing';
import { startFakeProvider, type FakeProvider } from '../testing/fake-provider';
import { startGatewayProcess, type GatewayProcess } from '../testing/gateway-process';
import { startOtlpCollector, type CollectedSpan, type OtlpCollector } from '../testing/otlp-collector';
import { startWorkerProcess, type WorkerProcess } from '../testing/worker-process';

// One run followed across processes: a real gateway and a real worker export
// their spans over OTLP/HTTP to a collector of this test. The run's request,
// each enqueue and each node execution are spans of one trace, whichever
// process wrote them, and the log lines of both processes name that trace.

jest.setTimeout(120_000);

const ADMIN_TOKEN = 'tracing-test-admin-token-0123456789';

let env: TestEnv;
let provider: FakeProvider;
let collector: OtlpCollector;
let gateway: GatewayProcess;
let worker: WorkerProcess;
const runs: { ok: string; failed: string } = { ok: '', failed: '' };

const flow = (url: string): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'ask', type: 'generic_provider', params: { url }, inputs: { prompt: 'topic' } },
    { id: 'join', type: 'prompt_concatenate', inputs: { parts: ['topic', 'ask'] } },
  ],
  outputs: [{ id: 'join', type: 'text', description: 'Joined' }],
});

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function runToEnd(apiKey: string, agentId: string, requestId: string): Promise<string> {
  const created = await call(
    'POST',
    '/runs',
    { 'X-Api-Key': apiKey, 'X-Request-Id': requestId },
    { agent_id: agentId, inputs: [{ id: 'topic', value: 'tea' }] },
  );
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  await waitFor(
    `run ${id} to end`,
    async () => (await call('GET', `/runs/${id}`, { 'X-Api-Key': apiKey })).body.status !== 'in_progress',
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  return id;
}

beforeAll(async () => {
  [env, provider, collector] = await Promise.all([createTestEnv(), startFakeProvider(), startOtlpCollector()]);
  const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' };
  gateway = await startGatewayProcess({ ...env.env, ...tracing, ADMIN_TOKEN });
  worker = startWorkerProcess({ ...env.env, ...tracing, OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' });
  await Promise.all([gateway.ready, worker.ready]);

  const org = await call(
    'POST',
    '/admin/organizations',
    { Authorization: `Bearer ${ADMIN_TOKEN}` },
    {
      name: 'Traced',
      credits: 1000,
    },
  );
  const apiKey = org.body.api_key as string;
  const agent = async (path: string) =>
    (
      await call(
        'POST',
        '/agents',
        { 'X-Api-Key': apiKey },
        {
          name: `Traced ${path}`,
          description: 'Two hops through the queue',
          flow: flow(provider.url(path)),
        },
      )
    ).body.id as string;
  const [okAgent, failingAgent] = [await agent('/ok'), await agent('/server-error')];
  runs.ok = await runToEnd(apiKey, okAgent, 'trace-ok-run');
  runs.failed = await runToEnd(apiKey, failingAgent, 'trace-failed-run');

  // SIGTERM flushes what the batch processors still hold before the processes exit.
  gateway.child.kill('SIGTERM');
  worker.child.kill('SIGTERM');
  expect((await gateway.exited).code).toBe(0);
  expect((await worker.exited).code).toBe(0);
});

afterAll(async () => {
  for (const p of [gateway, worker]) {
    if (p && p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  }
  await Promise.all([gateway?.exited, worker?.exited]);
  await Promise.all([provider?.close(), collector?.close()]);
  await env?.cleanup();
});

/** The trace of a run: the one its gateway producer span belongs to. */
function traceOf(runId: string): { traceId: string; spans: CollectedSpan[] } {
  const send = collector.spans.find(
    (s) => s.service === 'weft-gateway' && s.kind === 'producer' && s.attributes['weft.run.id'] === runId,
  );
  expect(send).toBeDefined();
  return { traceId: send!.traceId, spans: collector.spans.filter((s) => s.traceId === send!.traceId) };
}

function logLines(lines: string[]): Record<string, unknown>[] {
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

test('a run is one trace: the request, each enqueue and each node execution, across gateway and worker', () => {
  const { traceId, spans } = traceOf(runs.ok);
  const byId = new Map(spans.map((s) => [s.spanId, s]));

  // The request: a root server span named by its route template.
  const request = spans.filter((s) => s.kind === 'server');
  expect(request).toHaveLength(1);
  expect(request[0]).toMatchObject({
    service: 'weft-gateway',
    name: 'POST /runs',
    parentSpanId: '',
    attributes: expect.objectContaining({ 'http.route': '/runs', 'http.response.status_code': 201 }),
  });

  // The gateway enqueues the flow's only root node, inside the request.
  const sends = spans.filter((s) => s.kind === 'producer');
  const gatewaySends = sends.filter((s) => s.service === 'weft-gateway');
  expect(gatewaySends).toHaveLength(1);
  expect(gatewaySends[0]).toMatchObject({
    name: 'send nodes-light',
    parentSpanId: request[0]!.spanId,
    attributes: expect.objectContaining({ 'weft.run.id': runs.ok, 'weft.node.id': 'topic' }),
  });

  // One execution span per node, in the worker. Queued nodes' spans are children of the enqueue
  // that dispatched them; `join`, an instant node, is executed at once by the worker that made it
  // ready, so its span is a child of that execution (lane `instant`, no enqueue).
  const executions = spans.filter((s) => s.kind === 'consumer');
  expect(executions.map((s) => s.attributes['weft.node.id']).sort()).toEqual(['ask', 'join', 'topic']);
  const types: Record<string, string> = { topic: 'text_input', ask: 'generic_provider', join: 'prompt_concatenate' };
  const execution = (nodeId: string) => executions.find((s) => s.attributes['weft.node.id'] === nodeId)!;
  for (const execution of executions.filter((s) => s.attributes['weft.node.id'] !== 'join')) {
    const nodeId = execution.attributes['weft.node.id'] as string;
    expect(execution).toMatchObject({
      service: 'weft-worker',
      name: `execute-node ${types[nodeId]}`,
      status: { code: 'unset' },
      attributes: expect.objectContaining({
        'weft.run.id': runs.ok,
        'weft.node.type': types[nodeId],
        'weft.node.attempt': 0,
        'messaging.destination.name': 'nodes-light',
      }),
    });
    const parent = byId.get(execution.parentSpanId);
    expect(parent).toMatchObject({ kind: 'producer', attributes: expect.objectContaining({ 'weft.node.id': nodeId }) });
  }
  expect(execution('join')).toMatchObject({
    service: 'weft-worker',
    name: 'execute-node prompt_concatenate',
    parentSpanId: execution('ask').spanId,
    status: { code: 'unset' },
    attributes: expect.objectContaining({ 'weft.run.id': runs.ok, 'messaging.destination.name': 'instant' }),
  });

  // The worker enqueues the next queued node inside the execution that made it ready.
  const sendOf = (nodeId: string) => sends.find((s) => s.attributes['weft.node.id'] === nodeId);
  expect(sendOf('ask')).toMatchObject({ service: 'weft-worker', parentSpanId: execution('topic').spanId });
  expect(sendOf('join')).toBeUndefined();

  // The provider call is a client span of the node that made it.
  const providerCall = spans.find((s) => s.kind === 'client' && s.parentSpanId === execution('ask').spanId);
  expect(providerCall).toMatchObject({ service: 'weft-worker', name: 'POST' });

  // Nothing of this run landed in another trace.
  const ofRun = collector.spans.filter((s) => s.attributes['weft.run.id'] === runs.ok);
  expect(new Set(ofRun.map((s) => s.traceId))).toEqual(new Set([traceId]));
});

test('a failing node marks its execution span failed, and the lines of both processes name the trace', () => {
  const { traceId, spans } = traceOf(runs.failed);
  const ask = spans.find((s) => s.kind === 'consumer' && s.attributes['weft.node.id'] === 'ask');
  expect(ask).toMatchObject({
    status: { code: 'error', message: expect.stringContaining("Provider of node 'ask' failed (503)") },
    attributes: expect.objectContaining({ 'weft.failure.reason': 'provider_error' }),
  });

  // The engine's line (shared code, the root logger, no ids passed) carries the run, node and span.
  const failedLine = logLines(worker.lines).find((l) => l.msg === 'node failed; its run ended');
  expect(failedLine).toMatchObject({
    service: 'worker',
    runId: runs.failed,
    nodeId: 'ask',
    reason: 'provider_error',
    trace_id: traceId,
    span_id: ask!.spanId,
  });

  // The gateway's access line of the request that created the run.
  const request = spans.find((s) => s.kind === 'server')!;
  const accessLine = logLines(gateway.lines).find((l) => l.reqId === 'trace-failed-run' && l.msg === 'request');
  expect(accessLine).toMatchObject({ method: 'POST', status: 201, trace_id: traceId, span_id: request.spanId });
});
