import { waitFor } from '@weft/testing';
import request from 'supertest';
import { postAgent, slowProviderFlow } from '../testing/catalog-fixtures';
import { startFakeProvider, type FakeProvider } from '../testing/fake-provider';
import { startRunStack, type RunStack } from '../testing/test-runs';
import { servicesEnvOf, startWorkerProcess, type WorkerProcess } from '../testing/worker-process';

// A worker process killed while it holds an organization's only slot (ADR
// 0025): the slot is the job's, not the process's, so the worker that takes the
// job over holds it on, and the organization's next node runs after it.

jest.setTimeout(90_000);

let stack: RunStack;
let provider: FakeProvider;
const processes: WorkerProcess[] = [];

beforeAll(async () => {
  [stack, provider] = await Promise.all([startRunStack({ ORG_MAX_EXECUTING_NODES: '1' }, false), startFakeProvider()]);
});
afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  await stack.close();
  await provider.close();
});

async function spawnWorker(): Promise<WorkerProcess> {
  const worker = startWorkerProcess({
    ...servicesEnvOf(stack.gw.config),
    DATABASE_POOL_SIZE: '4',
    OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
    ORG_MAX_EXECUTING_NODES: '1',
    WORKER_LOCK_DURATION_MS: '2000',
    RECONCILE_INTERVAL_MS: '500',
    RECONCILE_STALE_MS: '1500',
  });
  processes.push(worker);
  await worker.ready;
  return worker;
}

test("a worker SIGKILLed holding an organization's only slot: its job is taken over in that slot, then the next node runs", async () => {
  const org = await stack.gw.createOrg('Killed holder');
  const agent = await postAgent(stack.gw.app, org.apiKey, {
    flow: slowProviderFlow(provider.url('/delay?ms=1500&tag=held')),
  });
  const first = await spawnWorker();
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await request(stack.gw.app)
      .post('/runs')
      .set('X-Api-Key', org.apiKey)
      .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: `t${i}` }] });
    expect(res.status).toBe(201);
    ids.push(res.body.id as string);
  }
  await waitFor('the first slow node in flight', () => provider.delayed('held').active === 1);
  first.child.kill('SIGKILL');
  await first.exited;
  await spawnWorker();

  await waitFor(
    'both runs to complete',
    async () =>
      (await stack.gw.deps.db.prisma.run.count({ where: { id: { in: ids }, status: 'completed' } })) === ids.length,
    { timeoutMs: 40_000, intervalMs: 200 },
  );
  // The killed node's call was made again by the second worker; never two at once.
  expect(provider.delayed('held')).toMatchObject({ started: 3, maxActive: 1 });
});
