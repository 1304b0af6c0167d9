import type { Flow } from '@weft/contracts';
import { startReplicateDouble, waitFor, type ReplicateDouble } from '@weft/testing';
import request from 'supertest';
import { balanceOf } from '../testing/balance';
import { postAgent } from '../testing/catalog-fixtures';
import { download, resultOf } from '../testing/media/runs';
import { runInvariantViolations } from '../testing/invariants';
import { pollRun, startRunStack, type RunStack } from '../testing/test-runs';
import { servicesEnvOf, startWorkerProcess, type WorkerProcess } from '../testing/worker-process';

// A worker SIGKILLed while a provider job runs: the worker that takes the node
// attempt over finds the job it submitted (provider_jobs) and polls it to its
// end instead of submitting another. The provider (a Replicate double in this
// process) sees one prediction; the organization is charged once.

// Worker processes start from source: tens of seconds on a busy machine.
jest.setTimeout(180_000);

const TOKEN = 'r8_resume0123456789secrettoken';
let stack: RunStack;
let double: ReplicateDouble;
const processes: WorkerProcess[] = [];

beforeAll(async () => {
  [stack, double] = await Promise.all([startRunStack({}, false), startReplicateDouble()]);
  double.token = TOKEN;
});
afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  await stack?.close();
  await double?.close();
});

async function spawnWorker(): Promise<WorkerProcess> {
  const worker = startWorkerProcess({
    ...servicesEnvOf(stack.gw.config),
    DATABASE_POOL_SIZE: '4',
    REPLICATE_API_TOKEN: TOKEN,
    REPLICATE_BASE_URL: double.baseURL,
    // The double serves the prediction's output file on the loopback.
    OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
    // A dead worker's job is taken over within seconds.
    WORKER_LOCK_DURATION_MS: '2000',
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

test('a worker SIGKILLed mid-prediction: another resumes polling it; one prediction, charged once', async () => {
  const org = await stack.gw.createOrg('Resume', 1000);
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow, estimated_cost: 50 });
  const before = await balanceOf(stack.gw.deps.db, org.id);
  double.script({ hold: true });
  const first = await spawnWorker();
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: 'a kite over the sea' }] });
  expect(res.status).toBe(201);

  const polls = (id: string) =>
    double.requests.filter((r) => r.method === 'GET' && r.path === `/v1/predictions/${id}`).length;
  const prediction = await waitFor(
    'the prediction created and polled',
    () => {
      const p = [...double.predictions.values()][0];
      return p && polls(p.id) > 0 ? p : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 50 },
  );
  first.child.kill('SIGKILL');
  await first.exited;
  const polledBeforeKill = polls(prediction.id);

  await spawnWorker();
  // The new worker polls the same prediction: it resumed, it did not submit.
  await waitFor('the other worker to poll the prediction', () => polls(prediction.id) > polledBeforeKill, {
    timeoutMs: 60_000,
    intervalMs: 50,
  });
  double.release(prediction.id);

  const run = await pollRun(stack.gw, org.apiKey, `/runs/${res.body.id}`, undefined, 60_000);
  expect(run.status).toBe('completed');
  expect(double.creates()).toHaveLength(1);
  expect(double.cancels()).toEqual([]);
  const [asset] = resultOf(run, 'draw') as string[];
  expect((await download(stack.gw, org.apiKey, asset!)).bytes.subarray(1, 4).toString()).toBe('PNG');
  // flux-schnell: 3 credits per image, charged once.
  expect(run.cost).toBe(3);
  expect(await balanceOf(stack.gw.deps.db, org.id)).toBe(before - 3);
  const { rows } = await stack.gw.deps.db.pool.query(
    'SELECT provider, model, credits FROM node_charges WHERE run_id = $1',
    [run.id],
  );
  expect(rows).toEqual([{ provider: 'replicate', model: 'black-forest-labs/flux-schnell', credits: 3 }]);
  const jobs = await stack.gw.deps.db.pool.query('SELECT provider, job_id FROM provider_jobs WHERE run_id = $1', [
    run.id,
  ]);
  expect(jobs.rows).toEqual([{ provider: 'replicate', job_id: prediction.id }]);
  expect(await runInvariantViolations(stack.gw.deps.db)).toEqual([]);
});
