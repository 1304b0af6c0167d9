import { createTestEnv, waitFor, type TestEnv } from '@weft/testing';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createWorkerConnection } from './connections';
import { handBackDeadWorkersJobs } from './dead-worker-jobs';
import { heartbeatKey, startHeartbeat, workerConnectionName } from './heartbeat';

// Which active jobs handBackDeadWorkersJobs hands back, against a real Redis
// and BullMQ workers holding jobs: only those of an owner whose heartbeat is
// gone, or stale with its connection gone too; never an unnamed worker's.

let env: TestEnv;
let redis: Redis;
let queue: Queue;
const workers: Worker[] = [];
const connections: Redis[] = [];
const holding = new Map<string, string>();

beforeAll(async () => {
  env = await createTestEnv();
  redis = createWorkerConnection(env.redisUrl);
  queue = new Queue('held', { connection: redis, prefix: env.redisPrefix });
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close(true)));
  await queue.close();
  for (const c of [...connections, redis]) c.disconnect();
  await env?.cleanup();
});

/** A worker (named `name`, or unnamed) that takes one job and holds it: the id of that job. */
async function holder(name: string | undefined, label: string): Promise<string> {
  const connection = createWorkerConnection(env.redisUrl);
  connections.push(connection);
  const worker = new Worker('held', () => new Promise(() => undefined), {
    connection,
    prefix: env.redisPrefix,
    concurrency: 1,
    lockDuration: 60_000,
    // Its own stalled check stays out of the way: the test reads the marks the hand-back leaves.
    stalledInterval: 600_000,
    ...(name ? { name } : {}),
  });
  worker.on('active', (job) => holding.set(label, job.id!));
  workers.push(worker);
  await worker.waitUntilReady();
  await queue.add('job', { label }, { jobId: label });
  return waitFor(`${label} taken`, () => holding.get(label));
}

const lockOf = (id: string) => redis.get(`${queue.toKey(id)}:lock`);
const stalled = () => redis.smembers(queue.keys.stalled!);

test('a dead owner’s job is handed back; live, stale-but-connected and unnamed owners keep theirs', async () => {
  const live = await startHeartbeat({ redis, prefix: env.redisPrefix, workerId: 'live', intervalMs: 100_000 });
  // Beat last 150 s ago at a 100 s interval (so its key lives on through the test, however slow
  // the machine), and still connected: a busy process, not a dead one.
  const staleBeat = () =>
    redis.set(heartbeatKey(env.redisPrefix, 'busy'), JSON.stringify({ intervalMs: 100_000 }), 'PX', 150_000);
  await staleBeat();
  const busyConnection = new Redis(env.redisUrl, { connectionName: workerConnectionName(env.redisPrefix, 'busy') });
  await busyConnection.ping();

  const ids = {
    dead: await holder('dead', 'dead-job'),
    live: await holder('live', 'live-job'),
    busy: await holder('busy', 'busy-job'),
    unnamed: await holder(undefined, 'unnamed-job'),
  };

  expect(await handBackDeadWorkersJobs(redis, env.redisPrefix, [queue])).toBe(1);
  expect(await lockOf(ids.dead)).toBeNull();
  expect(await stalled()).toEqual([ids.dead]);
  // Its owner's name goes too: whoever takes it next writes its own (or none).
  expect(await redis.hget(queue.toKey(ids.dead), 'pb')).toBeNull();
  for (const id of [ids.live, ids.busy, ids.unnamed]) expect(await lockOf(id)).not.toBeNull();

  // The stale owner's connection gone as well: dead.
  await staleBeat();
  busyConnection.disconnect();
  await waitFor('the connection gone from CLIENT LIST', async () => {
    const list = (await redis.call('CLIENT', 'LIST')) as string;
    return !list.includes(workerConnectionName(env.redisPrefix, 'busy'));
  });
  expect(await handBackDeadWorkersJobs(redis, env.redisPrefix, [queue])).toBe(1);
  expect(await lockOf(ids.busy)).toBeNull();
  expect((await stalled()).sort()).toEqual([ids.dead, ids.busy].sort());
  for (const id of [ids.live, ids.unnamed]) expect(await lockOf(id)).not.toBeNull();
  await live.stop();
});
