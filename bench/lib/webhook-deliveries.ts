import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import type { Pool } from 'pg';
import type { ReceiverReport } from '../webhook-receiver';
import { inBatches } from './event-streams';
import {
  cpuMicros,
  cpuMicrosOfCommand,
  freePort,
  postJson,
  sleep,
  startBuilt,
  startTs,
  stopChild,
  waitFor,
} from './proc';
import { benchGatewayEnv, createOrg, profileArgs, TEXT_FLOW, type BenchStack } from './stack';

// Webhook deliveries/s of bench:events, beside a bare HTTP POST loop against
// the same receiver in the same run (the ceiling).
//
// The backlog is made before any worker runs, so that the drain measures the
// delivery path alone (dequeue, build and store the body, open the secret,
// sign, POST, record the attempt) and not the rate runs are made at: an
// organization without credits registers BENCH_WEBHOOK_ENDPOINTS endpoints
// (every event) on the receiver, then creates BENCH_WEBHOOK_RUNS runs with a
// webhook of their own (every event). Each such run fails at once for
// insufficient_credits: its create statement records a `start` and a
// `completed` delivery per receiver and enqueues their jobs, and leaves no
// node work to compete with the deliveries. A worker process (from dist/, its
// defaults but for WEBHOOK_CONCURRENCY = BENCH_WEBHOOK_CONCURRENCY) then
// starts on that backlog; deliveries/s = the deliveries ÷ the time from the
// first to the last arrival at the receiver.
//
// The ceiling: a process of its own posts as many requests, each a delivery
// the receiver got (same body, same signature headers, a fresh webhook-id),
// with fetch, as many at once as the worker's concurrency; posts/s timed at
// the receiver the same way. The receiver (a process of its own) answers 204
// at once and counts distinct webhook-ids; it checks a sample of signatures.

const ENDPOINTS = Number(process.env.BENCH_WEBHOOK_ENDPOINTS ?? 20);
const RUNS = Number(process.env.BENCH_WEBHOOK_RUNS ?? 250);
const CONCURRENCY = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 100);
const ALL_EVENTS = ['start', 'node', 'review', 'completed'];

export interface WebhookFigures {
  deliveries: number;
  seconds: number;
  deliveriesPerS: number;
  /** Requests beyond the first of each webhook-id. */
  duplicates: number;
  /** Attempts that got no 2xx (the worker's record), and deliveries the receiver never got. */
  failures: number;
  missing: number;
  verified: number;
  badSignatures: number;
  meanBodyBytes: number;
  concurrency: number;
  endpoints: number;
  runs: number;
  bare: { posts: number; seconds: number; postsPerS: number; errors: number; meanBodyBytes: number };
  /** CPU µs per delivery (per post for the bare loop) during each drain, by process. */
  cpuUs: {
    worker: number;
    postgres: number;
    redis: number;
    receiver: number;
    bareLoop: number;
    bareReceiver: number;
  };
  /** PostgreSQL transactions committed in the bench database per delivery, and Redis commands (server-wide). */
  pgCommitsPerDelivery: number;
  redisCommandsPerDelivery: number;
}

/** A child started with an IPC channel, and the messages it sends. */
function messages<T>(child: ChildProcess, pick: (m: Record<string, unknown>) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: Record<string, unknown>) => {
      const v = pick(m);
      if (v === undefined) return;
      child.off('message', onMessage);
      resolve(v);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`child exited (${code}) before answering`)));
  });
}

function report(receiver: ChildProcess): Promise<ReceiverReport> {
  const answer = messages(receiver, (m) => m.report as ReceiverReport | undefined);
  receiver.send({ report: true });
  return answer;
}

async function pgCommits(db: Pool): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0]!.n);
}

async function redisCommands(redis: Redis): Promise<number> {
  const info = await redis.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)![1]);
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number) {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await sleep(100)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

export async function measureWebhookDeliveries(stack: BenchStack, db: Pool): Promise<WebhookFigures> {
  const key = `1:${randomBytes(32).toString('base64')}`;
  const children: ChildProcess[] = [];
  const redis = new Redis(stack.redisUrl);
  try {
    const receiver = startTs('bench/webhook-receiver.ts', {}, [], true);
    children.push(receiver);
    const receiverPort = await messages(receiver, (m) => m.port as number | undefined);
    const receiverUrl = (path: string) => `http://127.0.0.1:${receiverPort}${path}`;

    // The backlog, through a gateway of its own (stopped before the drain).
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const gateway = await startBuilt(
      'apps/gateway/src/main.ts',
      benchGatewayEnv(stack, port, { CREDENTIALS_KEY: key }),
    );
    children.push(gateway);
    await waitFor(`${base}/readyz`);
    const auth = await createOrg(base, stack.adminToken, 0);
    const agent = await postJson(`${base}/agents`, auth, {
      name: 'Bench webhooks: refused for credits',
      description: 'Runs that fail at once',
      tags: ['bench'],
      estimated_cost: 1,
      flow: TEXT_FLOW,
    });
    const secrets: string[] = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const endpoint = await postJson(`${base}/webhook-endpoints`, auth, {
        url: receiverUrl(`/endpoint-${i}`),
        events: ALL_EVENTS,
      });
      secrets.push(endpoint.secret as string);
    }
    const orgSecret = await fetch(`${base}/webhooks/secret`, { headers: auth });
    secrets.push(((await orgSecret.json()) as { key: string }).key);
    await inBatches(
      Array.from({ length: RUNS }, (_, i) => i),
      10,
      async () => {
        const run = await postJson(`${base}/runs`, auth, {
          agent_id: agent.id,
          inputs: [{ id: 'topic', value: 'a topic' }],
          webhook: receiverUrl('/run'),
          webhook_events_filter: ALL_EVENTS,
        });
        if (run.failure_reason !== 'insufficient_credits') throw new Error(`a run was not refused: ${run.status}`);
      },
    );
    await stopChild(gateway);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries');
    const deliveries = rows[0]!.n;

    // The drain.
    receiver.send({ reset: { secrets } });
    const pgBefore = await pgCommits(db);
    const redisBefore = await redisCommands(redis);
    const postgresCpuBefore = cpuMicrosOfCommand('postgres');
    const redisCpuBefore = cpuMicrosOfCommand('redis-server');
    const receiverCpuBefore = cpuMicros(receiver.pid!);
    const workerPort = await freePort();
    const worker = await startBuilt(
      'apps/worker/src/main.ts',
      {
        ...stack.serviceEnv,
        CREDENTIALS_KEY: key,
        OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
        WEBHOOK_CONCURRENCY: String(CONCURRENCY),
        WORKER_HTTP_HOST: '127.0.0.1',
        WORKER_HTTP_PORT: String(workerPort),
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      },
      profileArgs(),
    );
    children.push(worker);
    // Its CPU from readiness (deliveries start then): the start-up's own is not the deliveries'.
    await waitFor(`http://127.0.0.1:${workerPort}/readyz`, 60_000);
    const workerCpuBefore = cpuMicros(worker.pid!);
    await waitUntil(
      'the first attempt at every delivery',
      async () => {
        const { rows: left } = await db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM webhook_deliveries WHERE attempts = 0',
        );
        return left[0]!.n === 0;
      },
      600_000,
    );
    const workerCpu = cpuMicros(worker.pid!) - workerCpuBefore;
    const postgresCpu = cpuMicrosOfCommand('postgres') - postgresCpuBefore;
    const redisCpu = cpuMicrosOfCommand('redis-server') - redisCpuBefore;
    const receiverCpu = cpuMicros(receiver.pid!) - receiverCpuBefore;
    const redisAfter = await redisCommands(redis);
    await stopChild(worker);
    // pg_stat_database counts what backends have reported: they report at most once a second.
    await sleep(1500);
    const pgAfter = await pgCommits(db);
    const drained = await report(receiver);
    const { rows: failed } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_attempts WHERE error IS NOT NULL',
    );
    if (!drained.sample) throw new Error('the receiver got no delivery to copy');

    // The ceiling: as many bare posts, as many at once.
    receiver.send({ reset: { secrets: [] } });
    const bareReceiverCpuBefore = cpuMicros(receiver.pid!);
    const loop = startTs('bench/webhook-post-loop.ts', {}, [], true);
    children.push(loop);
    const done = messages(loop, (m) => m.done as { errors: number } | undefined);
    loop.send({
      url: receiverUrl('/bare'),
      posts: deliveries,
      concurrency: CONCURRENCY,
      headers: drained.sample.headers,
      body: drained.sample.body,
    });
    const loopPid = loop.pid!;
    let loopCpu = 0;
    const cpuTimer = setInterval(() => {
      try {
        loopCpu = cpuMicros(loopPid);
      } catch {
        // Exited: its last reading stands.
      }
    }, 50);
    const { errors } = await done;
    clearInterval(cpuTimer);
    const bareReceiverCpu = cpuMicros(receiver.pid!) - bareReceiverCpuBefore;
    const bare = await report(receiver);

    const seconds = (drained.last - drained.first) / 1000;
    const bareSeconds = (bare.last - bare.first) / 1000;
    return {
      deliveries,
      seconds,
      deliveriesPerS: drained.distinct / seconds,
      duplicates: drained.requests - drained.distinct,
      failures: failed[0]!.n,
      missing: deliveries - drained.distinct,
      verified: drained.verified,
      badSignatures: drained.badSignatures,
      meanBodyBytes: drained.bodyBytes / Math.max(1, drained.requests),
      concurrency: CONCURRENCY,
      endpoints: ENDPOINTS,
      runs: RUNS,
      bare: {
        posts: bare.distinct,
        seconds: bareSeconds,
        postsPerS: bare.distinct / bareSeconds,
        errors,
        meanBodyBytes: bare.bodyBytes / Math.max(1, bare.requests),
      },
      cpuUs: {
        worker: workerCpu / deliveries,
        postgres: postgresCpu / deliveries,
        redis: redisCpu / deliveries,
        receiver: receiverCpu / deliveries,
        bareLoop: loopCpu / Math.max(1, bare.requests),
        bareReceiver: bareReceiverCpu / Math.max(1, bare.requests),
      },
      pgCommitsPerDelivery: (pgAfter - pgBefore) / deliveries,
      redisCommandsPerDelivery: (redisAfter - redisBefore) / deliveries,
    };
  } finally {
    redis.disconnect();
    await Promise.all(children.map((c) => stopChild(c)));
  }
}
