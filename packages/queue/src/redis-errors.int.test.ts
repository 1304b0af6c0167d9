import net from 'node:net';
import { createTestEnv, type TestEnv } from '@weft/testing';
import { Redis } from 'ioredis';
import { createProducerConnection } from './connections';
import { isRedisUnavailable } from './redis-errors';

// isRedisUnavailable against errors ioredis raises for a Redis that is not
// there, as producers (no offline queue) and queueing clients meet them, and
// for commands that are simply wrong.

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.cleanup());

async function closedPortUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `redis://127.0.0.1:${port}`;
}

test('a producer connection (no offline queue) to a Redis that is not there: unavailable', async () => {
  const redis = createProducerConnection(await closedPortUrl());
  redis.on('error', () => undefined);
  try {
    expect(isRedisUnavailable(await redis.get('k').catch((e: unknown) => e))).toBe(true);
  } finally {
    redis.disconnect();
  }
});

test('a queueing connection that gave up retrying: unavailable', async () => {
  const redis = new Redis(await closedPortUrl(), { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    expect(isRedisUnavailable(await redis.get('k').catch((e: unknown) => e))).toBe(true);
  } finally {
    redis.disconnect();
  }
});

test('a wrong command is not an outage', async () => {
  const redis = new Redis(env.redisUrl);
  try {
    const key = `${env.redisPrefix}:str`;
    await redis.set(key, 'x');
    expect(isRedisUnavailable(await redis.lpush(key, 'y').catch((e: unknown) => e))).toBe(false);
    await redis.del(key);
  } finally {
    redis.disconnect();
  }
});
