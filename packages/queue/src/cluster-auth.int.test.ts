import { startRedisCluster, type TestRedisCluster } from '@weft/testing';
import { Queue } from 'bullmq';
import { createProducerConnection, createRedisClient, mastersOf, redisTargetOf, type RedisClient } from './connections';

// A Redis Cluster that asks for a password (as managed ones do): REDIS_URL's
// credentials reach every node's connection when REDIS_CLUSTER_NODES is set,
// its host is not used, and without them the cluster refuses the commands.

jest.setTimeout(60_000);

const PASSWORD = 'cluster-secret';
let cluster: TestRedisCluster;
const clients: RedisClient[] = [];
const track = <C extends RedisClient>(client: C): C => {
  clients.push(client);
  client.on('error', () => undefined);
  return client;
};

beforeAll(async () => {
  cluster = await startRedisCluster({ password: PASSWORD });
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await cluster?.stop();
});

test("REDIS_URL's password opens every master of the cluster; its host is not used", async () => {
  const target = redisTargetOf({
    REDIS_URL: `redis://:${PASSWORD}@nowhere.invalid:1`,
    REDIS_CLUSTER_NODES: cluster.nodes,
  });
  const redis = track(createProducerConnection(target));
  await new Promise((resolve) => redis.once('ready', resolve));
  // Tags whose slots lie on different masters of three.
  await Promise.all(['{a}', '{b}', '{c}'].map((tag) => redis.set(`${tag}:key`, tag)));
  expect(await Promise.all(['{a}', '{b}', '{c}'].map((tag) => redis.get(`${tag}:key`)))).toEqual(['{a}', '{b}', '{c}']);
  expect(mastersOf(redis)).toHaveLength(3);

  const queue = new Queue('auth', { connection: redis, prefix: '{auth}' });
  await queue.add('job', { n: 1 });
  expect(await queue.getJobCounts('wait')).toEqual({ wait: 1 });
  await queue.close();
});

test('the cluster asks for the password: a connection without it is refused', async () => {
  const redis = track(createRedisClient(cluster.nodes[0]!.replace(/^/, 'redis://'), { maxRetriesPerRequest: 0 }));
  await expect(redis.ping()).rejects.toThrow(/NOAUTH/);
});
