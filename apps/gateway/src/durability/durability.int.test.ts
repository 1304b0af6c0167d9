import { waitFor } from '@weft/testing';
import request from 'supertest';
import { postAgent, slowProviderFlow } from '../testing/catalog-fixtures';
import { startFakeProvider, type FakeProvider } from '../testing/fake-provider';
import { runInvariantViolations } from '../testing/invariants';
import { startRunStack, type RunStack } from '../testing/test-runs';
import { servicesEnvOf, startWorkerProcess, type WorkerProcess } from '../testing/worker-process';

// Durability with real worker processes: a worker killed mid-run, a graceful
// SIGTERM, cancel racing completion. Each test ends with the shared invariant
// check. A gateway process dying between commit and enqueue and a FLUSHALL of
// Redis are in process-faults.int.test.ts; database and Redis outages during a
// node in transient-errors.int.test.ts.

// Each test starts worker processes from source: tens of seconds on a busy machine.
jest.setTimeout(120_000);

let stack: RunStack;
let provider: FakeProvider;
let org: { id: string; apiKey: string };
let agentId: string;
const processes: WorkerProcess[] = [];

function workerEnv(extra: Record<string, string> = {}): Record<string, string> {
  const c = stack.gw.config;
  return {
    ...servicesEnvOf(c),
    DATABASE_POOL_SIZE: '4',
    OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
    WORKER_LOCK_DURATION_MS: '2000',
    RECONCILE_INTERVAL_MS: '500',
    RECONCILE_STALE_MS: '1500',
    WORKER_SHUTDOWN_GRACE_SECONDS: '20',
    ...extra,
  };
}

async function spawnWorker(extra: Record<string, string> = {}): Promise<WorkerProcess> {
  const worker = startWorkerProcess(workerEnv(extra));
  processes.push(worker);
  await worker.ready;
  return worker;
}

beforeAll(async () => {
  [stack, provider] = await Promise.all([startRunStack({}, false), startFakeProvider()]);
  org = await stack.gw.createOrg('Durable', 10_000);
  agentId = (
    await postAgent(stack.gw.app, org.apiKey, {
      flow: slowProviderFlow(provider.url('/delay?ms=800')),
      estimated_cost: 2,
    })
  ).id;
});
afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  await stack.close();
  await provider.close();
});

async function createRuns(n: number, agent = agentId): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await request(stack.gw.app)
      .post('/runs')
      .set('X-Api-Key', org.apiKey)
      .send({ agent_id: agent, inputs: [{ id: 'topic', value: `t${i}` }] });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  return ids;
}

async function waitAllEnded(ids: string[], timeoutMs = 30_000) {
  await waitFor(
    'every run to end',
    async () => (await stack.gw.deps.db.prisma.run.count({ where: { id: { in: ids }, status: 'in_progress' } })) === 0,
    { timeoutMs, intervalMs: 200 },
  );
  return stack.gw.deps.db.prisma.run.findMany({ where: { id: { in: ids } } });
}

async function expectInvariants() {
  expect(await runInvariantViolations(stack.gw.deps.db)).toEqual([]);
}

test('a worker SIGKILLed mid-run: another finishes its runs from the last completed node, charged once', async () => {
  const [a, b] = [await spawnWorker(), await spawnWorker()];
  const ids = await createRuns(8);
  await waitFor('a provider call in flight', () => provider.received.some((r) => r.path === '/delay'));
  a.child.kill('SIGKILL');
  await a.exited;
  const runs = await waitAllEnded(ids);
  expect(runs.map((r) => r.status)).toEqual(ids.map(() => 'completed'));
  expect(runs.every((r) => r.cost === 1)).toBe(true);
  // Completed nodes were not executed again: the text_input ran at attempt 0 exactly once per run.
  const inputs = await stack.gw.deps.db.prisma.nodeExecution.findMany({
    where: { runId: { in: ids }, nodeId: 'topic' },
  });
  expect(inputs.every((n) => n.status === 'completed' && n.attempt === 0)).toBe(true);
  b.child.kill('SIGTERM');
  expect((await b.exited).code).toBe(0);
  await expectInvariants();
});

test('SIGTERM: the worker stops taking jobs and finishes the ones in flight before exiting', async () => {
  const worker = await spawnWorker();
  const before = provider.received.length;
  const [id] = await createRuns(1);
  // In flight means the worker took the job and called the provider, not just that the node was dispatched.
  await waitFor('the slow node in flight', () => provider.received.length > before);
  worker.child.kill('SIGTERM');
  expect((await worker.exited).code).toBe(0);
  const node = await stack.gw.deps.db.prisma.nodeExecution.findFirstOrThrow({ where: { runId: id, nodeId: 'slow' } });
  expect(node.status).toBe('completed');
  const other = await spawnWorker();
  const [run] = await waitAllEnded([id!]);
  expect(run!.status).toBe('completed');
  other.child.kill('SIGTERM');
  await other.exited;
  await expectInvariants();
});

test('cancel racing completion: each run ends exactly once, completed or canceled', async () => {
  const quick = (
    await postAgent(stack.gw.app, org.apiKey, {
      flow: slowProviderFlow(provider.url('/delay?ms=30')),
      estimated_cost: 2,
    })
  ).id;
  const worker = await spawnWorker();
  const ids = await createRuns(12, quick);
  const cancels = await Promise.all(
    ids.map(async (id, i) => {
      await new Promise((r) => setTimeout(r, i * 15));
      return (await request(stack.gw.app).delete(`/runs/${id}`).set('X-Api-Key', org.apiKey)).status;
    }),
  );
  const runs = await waitAllEnded(ids);
  const byId = new Map(runs.map((r) => [r.id, r]));
  ids.forEach((id, i) => {
    const status = byId.get(id)!.status;
    expect(cancels[i] === 204 ? 'canceled' : 'completed').toBe(status);
    expect([204, 409]).toContain(cancels[i]);
  });
  worker.child.kill('SIGTERM');
  await worker.exited;
  await expectInvariants();
});
