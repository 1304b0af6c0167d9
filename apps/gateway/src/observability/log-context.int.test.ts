import { Writable } from 'node:stream';
import type { Flow } from '@weft/contracts';
import { createEngine, createRunQueues } from '@weft/engine';
import { logContextOptions } from '@weft/telemetry';
import { waitFor } from '@weft/testing';
import { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import request from 'supertest';
import { createApp } from '../app';
import { postAgent } from '../testing/catalog-fixtures';
import { startFakeProvider, type FakeProvider } from '../testing/fake-provider';
import { pollRun, startRunStack, type RunStack } from '../testing/test-runs';

// Log lines name what they belong to even when written deep in shared code
// with the root logger, which knows nothing of requests or runs: the request
// id while serving a request, the run and node while executing a node.
// Tracing is off here (no OTLP endpoint): the lines carry no trace ids.

let stack: RunStack;
let provider: FakeProvider;
let org: { id: string; apiKey: string };

function captureLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info', ...logContextOptions }, sink), lines };
}

const failingFlow = (url: string): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'ask', type: 'generic_provider', params: { url }, inputs: { prompt: 'topic' } },
  ],
  outputs: [{ id: 'ask', type: 'text', description: 'Answer' }],
});

beforeAll(async () => {
  // No worker yet: each test starts the one it needs.
  [stack, provider] = await Promise.all([startRunStack({}, false), startFakeProvider()]);
  org = await stack.gw.createOrg('Logged', 1000);
});
afterAll(async () => {
  await stack.close();
  await provider.close();
});

test("lines written while serving a request carry its reqId, down to the engine's root-logger warning", async () => {
  const { logger, lines } = captureLogger();
  // Queues on a Redis that is not there: the engine's enqueue after commit fails and says so.
  const unreachable = new Redis('redis://127.0.0.1:1', {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
  });
  unreachable.on('error', () => undefined);
  const queues = createRunQueues(unreachable, stack.gw.config.REDIS_PREFIX, {
    light: { maxPerOrg: stack.gw.config.ORG_MAX_EXECUTING_NODES },
    heavy: { maxPerOrg: stack.gw.config.ORG_MAX_MEDIA_NODES },
  });
  const { gw } = stack;
  const engine = createEngine({
    db: gw.deps.db,
    queues,
    publisher: unreachable,
    redisPrefix: gw.config.REDIS_PREFIX,
    logger,
  });
  const app = createApp({ ...gw.deps, logger, engine });
  const agent = await postAgent(gw.app, org.apiKey);
  try {
    // Concurrent requests: each line names its own request, never the other's.
    const responses = await Promise.all(
      ['logged-request-a', 'logged-request-b'].map((id) =>
        request(app)
          .post('/runs')
          .set('X-Api-Key', org.apiKey)
          .set('X-Request-Id', id)
          .send({ agent_id: agent.id, inputs: [{ id: 'text', value: 'one\ntwo' }] }),
      ),
    );
    for (const res of responses) {
      expect(res.status).toBe(201);
      const reqId = res.headers['x-request-id'];
      const warning = lines.find(
        (l) => l.msg === 'enqueue failed; the reconciler will retry' && l.runId === res.body.id,
      );
      expect(warning).toMatchObject({ level: 40, reqId });
      expect(warning).not.toHaveProperty('trace_id');
      expect(lines.find((l) => l.msg === 'request' && l.reqId === reqId)).toMatchObject({ status: 201 });
    }
    // Outside a request nothing is added.
    logger.info('between requests');
    expect(lines.at(-1)).not.toHaveProperty('reqId');
  } finally {
    await queues.close();
    unreachable.disconnect();
  }
});

test('lines written while executing a node carry its runId and nodeId, including the engine’s own', async () => {
  const { logger, lines } = captureLogger();
  await stack.startWorker({ logger });
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow: failingFlow(provider.url('/server-error')) });
  const created = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: 'tea' }] });
  expect(created.status).toBe(201);
  const run = await pollRun(stack.gw, org.apiKey, `/runs/${created.body.id}`);
  expect(run.status).toBe('failed');

  // fail-node logs with the root logger and passes no ids: they come from the job's log context.
  // It logs once its commit is done, which a request may see first.
  const failed = await waitFor('the line of the failed node', () =>
    lines.find((l) => l.msg === 'node failed; its run ended'),
  );
  expect(failed).toMatchObject({
    runId: run.id,
    nodeId: 'ask',
    reason: 'provider_error',
  });
});
