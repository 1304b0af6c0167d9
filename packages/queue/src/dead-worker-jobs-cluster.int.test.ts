import { startRedisCluster, waitFor, type TestRedisCluster } from '@weft/testing';
import { Queue, Worker } from 'bullmq';
import { createWorkerConnection, mastersOf, type RedisClient } from './connections';
import { handBackDeadWorkersJobs } from './dead-worker-jobs';
import { heartbeatKey, liveWorkers, startHeartbeat, workerConnectionName } from './heartbeat';
import { shardPrefixes } from './queue-shards';

// handBackDeadWorkersJobs on a Redis Cluster (three masters of this file's
// own): the hand-back script of a light shard's queue reads the heartbeat copy
// in its own slot, so a dead owner's jobs come back in every shard, a live
// owner's and a stale-but-connected one's stay, and no script crosses slots.

jest.setTimeout(60_000);

const PREFIX = '{dead-jobs}';
const SHARDS = 4;
let cluster: TestRedisCluster;
let redis: RedisClient;
const queues: Queue[] = [];
const workers: Worker[] = [];
const connections: RedisClient[] = [];
const holding = new Map<string, string>();

beforeAll(async () => {
  cluster = await startRedisCluster();
  redis = createWorkerConnection({ clusterNodes: cluster.nodes });
  for (const prefix of shardPrefixes(PREFIX, SHARDS)) queues.push(new Queue('held', { connection: redis, prefix }));
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close(true)));
  await Promise.all(queues.map((q) => q.close()));
  for (const c of [...connections, redis]) c?.disconnect();
  await cluster?.stop();
});

/** A worker named `name` that takes one job of `queue` and holds it: the id of that job. */
async function holder(queue: Queue, name: string, label: string): Promise<string> {
  const connection = createWorkerConnection({ clusterNodes: cluster.nodes });
  connections.push(connection);
  const worker = new Worker('held', () => new Promise(() => undefined), {
    connection,
    prefix: queue.opts.prefix!,
    concurrency: 1,
    lockDuration: 60_000,
    stalledInterval: 600_000,
    name,
  });
  worker.on('active', (job) => holding.set(label, job.id!));
  workers.push(worker);
  await worker.waitUntilReady();
  await queue.add('job', { label }, { jobId: label });
  return waitFor(`${label} taken`, () => holding.get(label));
}

const lockOf = (queue: Queue, id: string) => redis.get(`${queue.toKey(id)}:lock`);

test('dead owners’ jobs come back from every shard; live and stale-but-connected owners keep theirs', async () => {
  const [home, shard] = [queues[0]!, queues[2]!];
  const live = await startHeartbeat({ redis, prefix: PREFIX, workerId: 'live', intervalMs: 100_000, shards: SHARDS });
  expect(await liveWorkers(redis, PREFIX)).toEqual(['live']);
  // Beat 150 s ago at a 100 s interval, in every shard's slot as startHeartbeat writes it, and connected.
  const staleBeat = () =>
    Promise.all(
      shardPrefixes(PREFIX, SHARDS).map((p) =>
        redis.set(heartbeatKey(p, 'busy'), JSON.stringify({ intervalMs: 100_000 }), 'PX', 150_000),
      ),
    );
  await staleBeat();
  const busy = createWorkerConnection(
    { clusterNodes: cluster.nodes },
    { connectionName: workerConnectionName(PREFIX, 'busy') },
  );
  await Promise.all(shardPrefixes(PREFIX, SHARDS).map((p) => busy.get(`${p}:touch`)));

  const ids = {
    deadHome: await holder(home, 'dead', 'dead-home'),
    deadShard: await holder(shard, 'dead', 'dead-shard'),
    liveShard: await holder(shard, 'live', 'live-shard'),
    busyShard: await holder(shard, 'busy', 'busy-shard'),
  };

  expect(await handBackDeadWorkersJobs(redis, PREFIX, queues)).toBe(2);
  expect(await lockOf(home, ids.deadHome)).toBeNull();
  expect(await lockOf(shard, ids.deadShard)).toBeNull();
  expect(await redis.smembers(shard.keys.stalled!)).toEqual([ids.deadShard]);
  for (const id of [ids.liveShard, ids.busyShard]) expect(await lockOf(shard, id)).not.toBeNull();

  await staleBeat();
  busy.disconnect();
  await waitFor('the connection gone from every master', async () => {
    const lists = await Promise.all(mastersOf(redis).map((n) => n.call('CLIENT', 'LIST') as Promise<string>));
    return lists.every((list) => !list.includes(workerConnectionName(PREFIX, 'busy')));
  });
  expect(await handBackDeadWorkersJobs(redis, PREFIX, queues)).toBe(1);
  expect(await lockOf(shard, ids.busyShard)).toBeNull();
  expect(await lockOf(shard, ids.liveShard)).not.toBeNull();
  await live.stop();
  expect(await liveWorkers(redis, PREFIX)).toEqual(['busy']);
});
