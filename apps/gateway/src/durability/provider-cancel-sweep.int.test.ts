import type { Flow } from '@weft/contracts';
import { startReplicateDouble, waitFor, type ReplicateDouble } from '@weft/testing';
import request from 'supertest';
import { postAgent } from '../testing/catalog-fixtures';
import { pollRun, startRunStack, type RunStack } from '../testing/test-runs';
import { servicesEnvOf, startWorkerProcess, type WorkerProcess } from '../testing/worker-process';

// A run that ends while its provider job runs gets that job cancelled at the
// provider once a worker can do it, whatever was running when the run ended:
// the run cancelled while no worker was alive (the worker that takes the node
// over skips it), or the provider's cancel endpoint failing when the worker
// executing the node asked. The provider is a Replicate double in this process.

// Worker processes start from source: tens of seconds on a busy machine.
jest.setTimeout(240_000);

const TOKEN = 'r8_cancelsweep0123456789secret';
let stack: RunStack;
let double: ReplicateDouble;
const processes: WorkerProcess[] = [];

beforeAll(async () => {
  [stack, double] = await Promise.all([startRunStack({}, false), startReplicateDouble()]);
  double.token = TOKEN;
});
afterEach(async () => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
});
afterAll(async () => {
  await stack?.close();
  await double?.close();
});

async function spawnWorker(): Promise<WorkerProcess> {
  const worker = startWorkerProcess({
    ...servicesEnvOf(stack.gw.config),
    DATABASE_POOL_SIZE: '4',
    REPLICATE_API_TOKEN: TOKEN,
    REPLICATE_BASE_URL: double.baseURL,
    OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
    RECONCILE_INTERVAL_MS: '500',
    RECONCILE_STALE_MS: '1500',
  });
  processes.push(worker);
  await worker.ready;
  return worker;
}

const flow: Flow = {
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'draw', type: 'image_generation', inputs: { prompt: 'topic' } },
  ],
  outputs: [{ id: 'draw', type: 'images', description: 'The picture' }],
};

/** Starts a run whose prediction the double holds; its id and the prediction's once the double saw it polled. */
async function startHeldRun(orgName: string, prompt: string) {
  const org = await stack.gw.createOrg(orgName, 1000);
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow, estimated_cost: 50 });
  double.script({ hold: true });
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: prompt }] });
  expect(res.status).toBe(201);
  const polled = (id: string) => double.requests.some((r) => r.method === 'GET' && r.path === `/v1/predictions/${id}`);
  const prediction = await waitFor(
    'the prediction created and polled',
    () =>
      [...double.predictions.values()].find((p) => (p.input as { prompt?: string }).prompt === prompt && polled(p.id)),
    { timeoutMs: 60_000, intervalMs: 50 },
  );
  return { apiKey: org.apiKey, runId: res.body.id as string, prediction };
}

const cancelsOf = (id: string) => double.cancels().filter((c) => c === id).length;

async function cancelledAtProvider(runId: string): Promise<boolean> {
  const { rows } = await stack.gw.deps.db.pool.query<{ canceled_at: Date | null }>(
    'SELECT canceled_at FROM provider_jobs WHERE run_id = $1',
    [runId],
  );
  return rows.length === 1 && rows[0]!.canceled_at !== null;
}

test('a run cancelled while no worker runs: the next worker cancels its prediction', async () => {
  const first = await spawnWorker();
  const { apiKey, runId, prediction } = await startHeldRun('Cancel while down', 'a lighthouse at dusk');
  first.child.kill('SIGKILL');
  await first.exited;

  await request(stack.gw.app).delete(`/runs/${runId}`).set('X-Api-Key', apiKey).expect(204);
  expect((await pollRun(stack.gw, apiKey, `/runs/${runId}`)).status).toBe('canceled');
  expect(cancelsOf(prediction.id)).toBe(0);

  await spawnWorker();
  await waitFor('the cancel to reach Replicate', () => cancelsOf(prediction.id) > 0, {
    timeoutMs: 90_000,
    intervalMs: 100,
  });
  expect(prediction.status).toBe('canceled');
  await waitFor('the cancel recorded', () => cancelledAtProvider(runId), { timeoutMs: 30_000 });
  // Recorded once made: it is not made again.
  expect(cancelsOf(prediction.id)).toBe(1);
});

test("the provider's cancel endpoint failing at first: the cancel is retried until it succeeds", async () => {
  await spawnWorker();
  const { apiKey, runId, prediction } = await startHeldRun('Cancel endpoint down', 'a kite over the sea');
  // The executing worker's own cancel, and the sweep's first retry, answered 500.
  double.failCancels(2);
  await request(stack.gw.app).delete(`/runs/${runId}`).set('X-Api-Key', apiKey).expect(204);
  expect((await pollRun(stack.gw, apiKey, `/runs/${runId}`)).status).toBe('canceled');

  await waitFor('the prediction cancelled at Replicate', () => prediction.status === 'canceled', {
    timeoutMs: 120_000,
    intervalMs: 100,
  });
  await waitFor('the cancel recorded', () => cancelledAtProvider(runId), { timeoutMs: 30_000 });
  expect(cancelsOf(prediction.id)).toBe(3);
});
