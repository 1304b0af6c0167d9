import { createDb, type Db } from '@weft/db';
import { createTestEnv, startDedicatedRedis, waitFor, type DedicatedRedis, type TestEnv } from '@weft/testing';
import { Redis } from 'ioredis';
import { slowProviderFlow } from '../testing/catalog-fixtures';
import { startFakeProvider, type FakeProvider } from '../testing/fake-provider';
import { startGatewayProcess, type GatewayProcess } from '../testing/gateway-process';
import { runInvariantViolations } from '../testing/invariants';
import { startWorkerProcess, type WorkerProcess } from '../testing/worker-process';

// Faults that only whole processes can show: the gateway process dying between
// a run's commit and its enqueue (the fault hook RUN_FAULT_EXIT_AFTER_COMMIT,
// honoured only in tests), and a real FLUSHALL of the Redis that gateway and
// workers use (a Redis of this test's own: other test files share the usual one).

jest.setTimeout(90_000);

const ADMIN_TOKEN = 'process-faults-admin-token-0123456789';

let env: TestEnv;
let db: Db;
let provider: FakeProvider;
const processes: (GatewayProcess | WorkerProcess)[] = [];
const redisServers: DedicatedRedis[] = [];

beforeAll(async () => {
  [env, provider] = await Promise.all([createTestEnv(), startFakeProvider()]);
  db = createDb({ databaseUrl: env.databaseUrl, poolSize: 2 });
});
afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  for (const r of redisServers) await r.stop();
  await db.close();
  await provider.close();
  await env.cleanup();
});

const workerSettings = {
  OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
  WORKER_LOCK_DURATION_MS: '2000',
  RECONCILE_INTERVAL_MS: '500',
  RECONCILE_STALE_MS: '1500',
};

async function gatewayProcess(extra: Record<string, string> = {}) {
  const gateway = await startGatewayProcess({ ...env.env, ADMIN_TOKEN, ...extra });
  processes.push(gateway);
  await gateway.ready;
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const org = await call(
    'POST',
    '/admin/organizations',
    { Authorization: `Bearer ${ADMIN_TOKEN}` },
    {
      name: `Faults ${processes.length}`,
      credits: 1_000,
    },
  );
  const apiKey = org.body.api_key as string;
  const agent = await call(
    'POST',
    '/agents',
    { 'X-Api-Key': apiKey },
    {
      name: `Faults ${processes.length}`,
      description: 'A slow node between two quick ones',
      flow: slowProviderFlow(provider.url('/delay?ms=600')),
      estimated_cost: 2,
    },
  );
  expect(agent.status).toBe(201);
  const createRun = (externalId: string) =>
    fetch(`${gateway.url}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Api-Key': apiKey },
      body: JSON.stringify({
        agent_id: agent.body.id,
        external_id: externalId,
        inputs: [{ id: 'topic', value: externalId }],
      }),
    });
  return { gateway, orgId: org.body.id as string, createRun };
}

async function workerProcess(extra: Record<string, string> = {}) {
  const worker = startWorkerProcess({ ...env.env, ...workerSettings, ...extra });
  processes.push(worker);
  await worker.ready;
  return worker;
}

async function waitAllEnded(orgId: string, expected: number) {
  await waitFor(
    `${expected} runs to end`,
    async () =>
      (await db.prisma.run.count({ where: { organizationId: orgId, status: { not: 'in_progress' } } })) === expected,
    { timeoutMs: 40_000, intervalMs: 200 },
  );
  return db.prisma.run.findMany({ where: { organizationId: orgId } });
}

test('the gateway process dies between the commit and the enqueue: the run is found and executed', async () => {
  const { gateway, orgId, createRun } = await gatewayProcess({ RUN_FAULT_EXIT_AFTER_COMMIT: 'true' });
  // The caller sees the connection drop; the run was committed, its first job never enqueued.
  await expect(createRun('crashed-create')).rejects.toThrow();
  expect((await gateway.exited).code).toBe(86);
  const [committed] = await db.prisma.run.findMany({ where: { organizationId: orgId } });
  expect(committed).toMatchObject({ externalId: 'crashed-create', status: 'in_progress' });

  const worker = await workerProcess();
  const [ended] = await waitAllEnded(orgId, 1);
  expect(ended).toMatchObject({ id: committed!.id, status: 'completed', cost: 1 });
  worker.child.kill('SIGTERM');
  await worker.exited;
  expect(await runInvariantViolations(db)).toEqual([]);
});

test('FLUSHALL on the Redis of gateway and workers during runs: the reconciler re-enqueues from PostgreSQL', async () => {
  const redis = await startDedicatedRedis(['--maxmemory-policy', 'noeviction']);
  redisServers.push(redis);
  const { orgId, createRun } = await gatewayProcess({ REDIS_URL: redis.url });
  const worker = await workerProcess({ REDIS_URL: redis.url });
  const before = provider.received.length;
  for (let i = 0; i < 6; i++) expect((await createRun(`flushed-${i}`)).status).toBe(201);
  await waitFor('the slow nodes in flight', () => provider.received.length >= before + 6, { intervalMs: 20 });

  const admin = new Redis(redis.url);
  try {
    expect(await admin.flushall()).toBe('OK');
  } finally {
    admin.disconnect();
  }
  const runs = await waitAllEnded(orgId, 6);
  expect(runs.map((r) => [r.status, r.cost])).toEqual(runs.map(() => ['completed', 1]));
  worker.child.kill('SIGTERM');
  await worker.exited;
  expect(await runInvariantViolations(db)).toEqual([]);
});
