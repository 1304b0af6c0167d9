import { newKeyEntry } from '@weft/credentials';
import { createDb, type Db } from '@weft/db';
import { createTestEnv, startDedicatedRedis, waitFor, type DedicatedRedis, type TestEnv } from '@weft/testing';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { slowProviderFlow } from '../testing/catalog-fixtures';
import { startFakeProvider, type FakeProvider } from '../testing/fake-provider';
import { startGatewayProcess, type GatewayProcess } from '../testing/gateway-process';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver';
import { startWorkerProcess, type WorkerProcess } from '../testing/worker-process';

// Webhook deliveries survive the processes and the Redis they run on: real
// gateway and worker processes killed while deliveries are pending, a gateway
// dying between a run's commit and its enqueue, and a FLUSHALL. Afterwards
// every event a run went through (as PostgreSQL records its nodes) reaches its
// receivers at least once, and nothing else does.

jest.setTimeout(120_000);

const ADMIN_TOKEN = 'webhooks-durability-admin-token-0123456789';
const KEY = newKeyEntry();

let env: TestEnv;
let db: Db;
let provider: FakeProvider;
let receiver: WebhookReceiver;
const processes: (GatewayProcess | WorkerProcess)[] = [];
const redisServers: DedicatedRedis[] = [];

beforeAll(async () => {
  [env, provider, receiver] = await Promise.all([createTestEnv(), startFakeProvider(), startWebhookReceiver()]);
  db = createDb({ databaseUrl: env.databaseUrl, poolSize: 2 });
});
afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  for (const r of redisServers) await r.stop();
  await db.close();
  await receiver.close();
  await provider.close();
  await env.cleanup();
});

async function gatewayProcess(extra: Record<string, string> = {}) {
  const gateway = await startGatewayProcess({ ...env.env, ADMIN_TOKEN, CREDENTIALS_KEY: KEY, ...extra });
  processes.push(gateway);
  await gateway.ready;
  return gateway;
}

async function workerProcess(extra: Record<string, string> = {}) {
  const worker = startWorkerProcess({
    ...env.env,
    CREDENTIALS_KEY: KEY,
    OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
    WORKER_LOCK_DURATION_MS: '2000',
    RECONCILE_INTERVAL_MS: '500',
    RECONCILE_STALE_MS: '1500',
    WEBHOOK_SWEEP_INTERVAL_MS: '500',
    WEBHOOK_RETRY_SCHEDULE: Array(40).fill('400ms').join(','),
    ...extra,
  });
  processes.push(worker);
  await worker.ready;
  return worker;
}

async function call(
  gateway: GatewayProcess,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** An organization with an agent (a quick node, a 600 ms provider call, a quick join) and an endpoint taking every event. */
async function organization(gateway: GatewayProcess, endpointPath: string) {
  const org = await call(
    gateway,
    'POST',
    '/admin/organizations',
    { Authorization: `Bearer ${ADMIN_TOKEN}` },
    { name: 'Hooks', credits: 1_000 },
  );
  const apiKey = org.body.api_key as string;
  const auth = { 'X-Api-Key': apiKey };
  const agent = await call(gateway, 'POST', '/agents', auth, {
    name: 'Hooks',
    description: 'A slow node between two quick ones',
    flow: slowProviderFlow(provider.url('/delay?ms=600')),
  });
  expect(agent.status).toBe(201);
  const endpoint = await call(gateway, 'POST', '/webhook-endpoints', auth, {
    url: receiver.url(endpointPath),
    events: ['start', 'node', 'review', 'completed'],
  });
  expect(endpoint.status).toBe(201);
  const own = await call(gateway, 'GET', '/webhooks/secret', auth);
  return {
    orgId: org.body.id as string,
    apiKey,
    agentId: agent.body.id as string,
    secrets: { endpoint: endpoint.body.secret as string, own: own.body.key as string },
  };
}

function createRun(gateway: GatewayProcess, apiKey: string, agentId: string, webhook: string) {
  return fetch(`${gateway.url}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Api-Key': apiKey },
    body: JSON.stringify({
      agent_id: agentId,
      inputs: [{ id: 'topic', value: 'tea' }],
      webhook,
      webhook_events_filter: ['start', 'node', 'review', 'completed'],
    }),
  });
}

const deliveryCounts = async (orgId: string) => {
  const { rows } = await db.pool.query<{ status: string; attempted: boolean; n: number }>(
    `SELECT status, attempts > 0 AS attempted, count(*)::int AS n FROM webhook_deliveries
      WHERE organization_id = $1 GROUP BY 1, 2`,
    [orgId],
  );
  const count = (status: string, attempted?: boolean) =>
    rows
      .filter((r) => r.status === status && (attempted === undefined || r.attempted === attempted))
      .reduce((n, r) => n + r.n, 0);
  return {
    pending: count('pending'),
    retrying: count('pending', true),
    succeeded: count('succeeded'),
    failed: count('failed'),
  };
};

/** What each run went through, as PostgreSQL records it: its start, each node settled, its end. */
async function historyOf(orgId: string): Promise<Map<string, string[]>> {
  const { rows } = await db.pool.query<{ id: string; status: string; nodes: { node_id: string; status: string }[] }>(
    `SELECT r.id, r.status, (SELECT json_agg(json_build_object('node_id', n.node_id, 'status', n.status))
                               FROM node_executions n WHERE n.run_id = r.id) AS nodes
       FROM runs r WHERE r.organization_id = $1`,
    [orgId],
  );
  return new Map(
    rows.map((run) => [
      run.id,
      [
        'run.start',
        ...run.nodes
          .filter((n) => ['completed', 'failed', 'skipped', 'waiting_review'].includes(n.status))
          .map((n) => `run.node ${n.node_id} ${n.status}`),
        ...(run.status === 'in_progress' ? [] : ['run.completed']),
      ].sort(),
    ]),
  );
}

/** What `path` received, verified and once per webhook-id, as events per run. */
function receivedOn(path: string, secret: string): Map<string, string[]> {
  const seen = new Set<string>();
  const byRun = new Map<string, string[]>();
  for (const r of receiver.on(path)) {
    const headers = r.headers as Record<string, string>;
    if (seen.has(headers['webhook-id']!)) continue;
    seen.add(headers['webhook-id']!);
    const event = new Webhook(secret).verify(r.body, headers) as {
      type: string;
      data: { id: string; node?: { id: string; status: string } };
    };
    const name = event.data.node ? `${event.type} ${event.data.node.id} ${event.data.node.status}` : event.type;
    byRun.set(event.data.id, [...(byRun.get(event.data.id) ?? []), name].sort());
  }
  return byRun;
}

const kill = async (p: GatewayProcess | WorkerProcess) => {
  p.child.kill('SIGKILL');
  await p.exited;
};

test('gateway and worker killed with deliveries pending, and a gateway dying between commit and enqueue: every event arrives', async () => {
  receiver.answer('/killed-endpoint', { status: 503 });
  receiver.answer('/killed-own', { status: 503 });
  const gateway = await gatewayProcess();
  const worker = await workerProcess();
  const org = await organization(gateway, '/killed-endpoint');
  for (let i = 0; i < 4; i++) {
    expect((await createRun(gateway, org.apiKey, org.agentId, receiver.url('/killed-own'))).status).toBe(201);
  }
  await waitFor('deliveries waiting for a retry', async () => (await deliveryCounts(org.orgId)).retrying >= 8, {
    intervalMs: 20,
  });
  await Promise.all([kill(worker), kill(gateway)]);

  // Its run is committed, with its start for both receivers; the process dies before enqueueing anything.
  const crashing = await gatewayProcess({ RUN_FAULT_EXIT_AFTER_COMMIT: 'true' });
  await expect(createRun(crashing, org.apiKey, org.agentId, receiver.url('/killed-own'))).rejects.toThrow();
  expect((await crashing.exited).code).toBe(86);

  receiver.answer('/killed-endpoint', { status: 200 });
  receiver.answer('/killed-own', { status: 200 });
  await gatewayProcess();
  const restarted = await workerProcess();
  await waitFor(
    'every run to end and every delivery to succeed',
    async () => {
      const ended = await db.prisma.run.count({ where: { organizationId: org.orgId, status: { not: 'in_progress' } } });
      const counts = await deliveryCounts(org.orgId);
      return ended === 5 && counts.pending === 0 && counts;
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  expect(await deliveryCounts(org.orgId)).toMatchObject({ failed: 0 });
  const history = await historyOf(org.orgId);
  expect([...history.values()].every((events) => events.includes('run.completed'))).toBe(true);
  expect(receivedOn('/killed-endpoint', org.secrets.endpoint)).toEqual(history);
  expect(receivedOn('/killed-own', org.secrets.own)).toEqual(history);
  restarted.child.kill('SIGTERM');
  await restarted.exited;
});

test('FLUSHALL with deliveries waiting for their retry: the sweep enqueues them again from PostgreSQL', async () => {
  const redis = await startDedicatedRedis(['--maxmemory-policy', 'noeviction']);
  redisServers.push(redis);
  receiver.answer('/flushed', { status: 503 });
  const gateway = await gatewayProcess({ REDIS_URL: redis.url });
  const worker = await workerProcess({ REDIS_URL: redis.url, WEBHOOK_RETRY_SCHEDULE: '3s,3s,3s' });
  const org = await organization(gateway, '/flushed-endpoint');
  for (let i = 0; i < 3; i++) {
    expect((await createRun(gateway, org.apiKey, org.agentId, receiver.url('/flushed'))).status).toBe(201);
  }
  // Every event of the three runs recorded, each of /flushed's failed at least once and waiting for a retry.
  await waitFor(
    'the runs to end, their own webhooks waiting for a retry',
    async () => {
      const ended = await db.prisma.run.count({ where: { organizationId: org.orgId, status: 'completed' } });
      const { rows } = await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_deliveries
          WHERE organization_id = $1 AND endpoint_id IS NULL AND status = 'pending' AND attempts >= 1`,
        [org.orgId],
      );
      return ended === 3 && rows[0]!.n === 15;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  const admin = new Redis(redis.url);
  try {
    expect(await admin.flushall()).toBe('OK');
  } finally {
    admin.disconnect();
  }
  receiver.answer('/flushed', { status: 200 });
  await waitFor('every delivery to succeed', async () => (await deliveryCounts(org.orgId)).pending === 0, {
    timeoutMs: 30_000,
    intervalMs: 200,
  });
  const history = await historyOf(org.orgId);
  expect(receivedOn('/flushed', org.secrets.own)).toEqual(history);
  expect(receivedOn('/flushed-endpoint', org.secrets.endpoint)).toEqual(history);
  worker.child.kill('SIGTERM');
  await worker.exited;
});
