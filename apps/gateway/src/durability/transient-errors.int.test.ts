import { RUN_QUEUES } from '@weft/queue';
import { waitFor } from '@weft/testing';
import { Queue } from 'bullmq';
import request from 'supertest';
import { postAgent, slowProviderFlow } from '../testing/catalog-fixtures';
import { startFakeProvider, type FakeProvider } from '../testing/fake-provider';
import { runInvariantViolations } from '../testing/invariants';
import { startTcpProxy, type TcpProxy } from '../testing/tcp-proxy';
import { startRunStack, type RunStack } from '../testing/test-runs';
import { servicesEnvOf, startWorkerProcess, type WorkerProcess } from '../testing/worker-process';

// Transient infrastructure errors during a node (issue 4, section 4): a real
// worker process reaches PostgreSQL or Redis through a TCP proxy, which cuts
// every connection and refuses new ones for a while, as a database restart or
// a Redis failover would, while the runs' nodes are executing. The work is
// retried with backoff: every run completes, none is reported failed, each is
// charged once, and the worker process survives.

// Each test starts a worker process from source and waits out retries with backoff.
jest.setTimeout(120_000);

let stack: RunStack;
let provider: FakeProvider;
let org: { id: string; apiKey: string };
let agentId: string;
let nodeQueues: Queue[];
const proxies: TcpProxy[] = [];
const processes: WorkerProcess[] = [];

beforeAll(async () => {
  [stack, provider] = await Promise.all([startRunStack({}, false), startFakeProvider()]);
  org = await stack.gw.createOrg('Transient', 1_000);
  agentId = (
    await postAgent(stack.gw.app, org.apiKey, {
      flow: slowProviderFlow(provider.url('/delay?ms=700')),
      estimated_cost: 2,
    })
  ).id;
  nodeQueues = Object.values(RUN_QUEUES).map(
    (name) => new Queue(name, { connection: stack.gw.deps.redis, prefix: stack.gw.config.REDIS_PREFIX }),
  );
});
afterAll(async () => {
  await Promise.all(nodeQueues.map((q) => q.close()));
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  for (const proxy of proxies) await proxy.close();
  await stack.close();
  await provider.close();
});

async function proxyTo(url: string): Promise<TcpProxy> {
  const u = new URL(url);
  const proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port) });
  proxies.push(proxy);
  return proxy;
}

async function spawnWorker(env: { DATABASE_URL: string; REDIS_URL: string }): Promise<WorkerProcess> {
  const c = stack.gw.config;
  const worker = startWorkerProcess({
    ...servicesEnvOf(c),
    DATABASE_POOL_SIZE: '4',
    OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
    WORKER_LOCK_DURATION_MS: '3000',
    RECONCILE_INTERVAL_MS: '500',
    RECONCILE_STALE_MS: '4000',
    ...env,
  });
  processes.push(worker);
  await worker.ready;
  return worker;
}

async function createRuns(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await request(stack.gw.app)
      .post('/runs')
      .set('X-Api-Key', org.apiKey)
      .send({ agent_id: agentId, inputs: [{ id: 'topic', value: `t${i}` }] });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  return ids;
}

async function expectAllCompletedOnce(ids: string[], worker: WorkerProcess) {
  const { prisma } = stack.gw.deps.db;
  await waitFor(
    'every run to end',
    async () => (await prisma.run.count({ where: { id: { in: ids }, status: 'in_progress' } })) === 0,
    { timeoutMs: 40_000, intervalMs: 200 },
  );
  const runs = await prisma.run.findMany({ where: { id: { in: ids } } });
  expect(runs.map((r) => [r.status, r.failureReason, r.cost])).toEqual(ids.map(() => ['completed', null, 1]));
  expect(worker.child.exitCode).toBeNull();
  expect(await runInvariantViolations(stack.gw.deps.db)).toEqual([]);
}

/** Whether a node job failed an attempt and waits for its retry (BullMQ keeps that count in Redis). */
async function aNodeJobRetrying(): Promise<boolean> {
  for (const queue of nodeQueues) {
    const jobs = await queue.getJobs(['delayed', 'wait', 'prioritized', 'active']);
    if (jobs.some((job) => job.attemptsMade > 0)) return true;
  }
  return false;
}

/** Waits until every run's slow node is executing (its request reached the provider). */
async function slowNodesInFlight(before: number, n: number) {
  await waitFor('the slow nodes in flight', () => provider.received.length >= before + n, { intervalMs: 20 });
}

test('PostgreSQL restarting while nodes execute: their completions are retried, the runs complete', async () => {
  const pg = await proxyTo(stack.gw.config.DATABASE_URL);
  const worker = await spawnWorker({
    DATABASE_URL: pg.via(stack.gw.config.DATABASE_URL),
    REDIS_URL: stack.gw.config.REDIS_URL!,
  });
  const before = provider.received.length;
  const ids = await createRuns(4);
  await slowNodesInFlight(before, ids.length);
  // The provider answers while the database is away: the completions fail and are retried.
  // The database stays away until one has failed, however long the worker takes to get there.
  await pg.outageUntil(() =>
    waitFor('a completion to fail for want of the database', aNodeJobRetrying, { timeoutMs: 30_000, intervalMs: 100 }),
  );
  await expectAllCompletedOnce(ids, worker);
  // And it still shuts down gracefully (exit 0, not forced at the end of its grace period).
  worker.child.kill('SIGTERM');
  expect((await worker.exited).code).toBe(0);
});

test('Redis failing over while nodes execute: the queue work resumes, the runs complete', async () => {
  const redis = await proxyTo(stack.gw.config.REDIS_URL!);
  const worker = await spawnWorker({
    DATABASE_URL: stack.gw.config.DATABASE_URL,
    REDIS_URL: redis.via(stack.gw.config.REDIS_URL!),
  });
  const before = provider.received.length;
  const ids = await createRuns(4);
  await slowNodesInFlight(before, ids.length);
  // Completing a node enqueues the next one and acknowledges the job: both need Redis.
  await redis.outage(1_500);
  await expectAllCompletedOnce(ids, worker);
  // And it still shuts down gracefully (exit 0, not forced at the end of its grace period).
  worker.child.kill('SIGTERM');
  expect((await worker.exited).code).toBe(0);
});
