import { once } from 'node:events';
import net from 'node:net';
import { RateLimitedError } from '@weft/errors';
import { createTestEnv, type TestEnv } from '@weft/testing';
import { Redis } from 'ioredis';
import { createRateLimiter } from './request-limiter';

let env: TestEnv;
let redis: Redis;
let n = 0;
const logger = () => ({ warn: jest.fn() });
/** For the tests that must run against Redis itself: no store failure may have been logged. */
const strictLogger = () => ({
  warn: jest.fn((_obj: object, msg: string) => {
    throw new Error(`unexpected store failure: ${msg}`);
  }),
});
/** A fresh key prefix per test, so counters never carry over. */
const prefix = () => `${env.redisPrefix}:rl-test-${++n}`;

beforeAll(async () => {
  env = await createTestEnv();
  redis = new Redis(env.redisUrl, { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
  // Until the connection is ready the limiter falls back to memory, which would hide what these tests check.
  await redis.ping();
});
afterAll(async () => {
  redis.disconnect();
  await env.cleanup();
});

async function rejection(promise: Promise<unknown>): Promise<RateLimitedError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof RateLimitedError) return err;
    throw err;
  }
  throw new Error('expected a RateLimitedError');
}

describe('createRateLimiter over Redis', () => {
  it('counts down within the window and reports the reset', async () => {
    const limiter = createRateLimiter({
      redis,
      keyPrefix: prefix(),
      limits: { default: 3, create: 2, upload: 2 },
      logger: strictLogger(),
    });
    const states = [];
    for (let i = 0; i < 3; i++) states.push(await limiter.consume('default', 'key:a'));
    expect(states.map((s) => s.remaining)).toEqual([2, 1, 0]);
    for (const s of states) {
      expect(s.limit).toBe(3);
      expect(s.resetSeconds).toBeGreaterThan(0);
      expect(s.resetSeconds).toBeLessThanOrEqual(60);
    }
  });

  it('throws a 429 carrying Retry-After and the X-RateLimit-* headers once over', async () => {
    const limiter = createRateLimiter({
      redis,
      keyPrefix: prefix(),
      limits: { default: 2, create: 2, upload: 2 },
      logger: strictLogger(),
    });
    await limiter.consume('default', 'key:a');
    await limiter.consume('default', 'key:a');
    const err = await rejection(limiter.consume('default', 'key:a'));
    expect(err.status).toBe(429);
    const retryAfter = Number(err.headers['Retry-After']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(err.headers).toMatchObject({ 'X-RateLimit-Limit': '2', 'X-RateLimit-Remaining': '0' });
    expect(Number(err.headers['X-RateLimit-Reset'])).toBeGreaterThan(0);
  });

  it('counts the default and create buckets separately, with their own limits', async () => {
    const limiter = createRateLimiter({
      redis,
      keyPrefix: prefix(),
      limits: { default: 2, create: 1, upload: 1 },
      logger: strictLogger(),
    });
    expect(await limiter.consume('create', 'key:a')).toMatchObject({ limit: 1, remaining: 0 });
    await rejection(limiter.consume('create', 'key:a'));
    // The create bucket is exhausted; the default bucket of the same key is untouched.
    expect(await limiter.consume('default', 'key:a')).toMatchObject({ limit: 2, remaining: 1 });
    expect(await limiter.consume('default', 'key:a')).toMatchObject({ remaining: 0 });
    await rejection(limiter.consume('default', 'key:a'));
  });

  it('counts each subject separately', async () => {
    const limiter = createRateLimiter({
      redis,
      keyPrefix: prefix(),
      limits: { default: 1, create: 1, upload: 1 },
      logger: strictLogger(),
    });
    await limiter.consume('default', 'key:a');
    await rejection(limiter.consume('default', 'key:a'));
    expect(await limiter.consume('default', 'key:b')).toMatchObject({ remaining: 0 });
  });

  it('shares one budget between limiter instances (gateway instances) on the same Redis', async () => {
    const keyPrefix = prefix();
    const a = createRateLimiter({
      redis,
      keyPrefix,
      limits: { default: 2, create: 2, upload: 2 },
      logger: strictLogger(),
    });
    const b = createRateLimiter({
      redis,
      keyPrefix,
      limits: { default: 2, create: 2, upload: 2 },
      logger: strictLogger(),
    });
    await a.consume('default', 'key:a');
    await b.consume('default', 'key:a');
    await rejection(a.consume('default', 'key:a'));
  });
});

describe('createRateLimiter when the store fails', () => {
  it('lets requests through when Redis is unreachable, logs a warning once, and never answers 429 for it', async () => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((resolve) => server.close(resolve)); // nothing listens there any more
    const dead = new Redis(port, '127.0.0.1', { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    dead.on('error', () => undefined);
    const log = logger();
    try {
      const limiter = createRateLimiter({
        redis: dead,
        keyPrefix: prefix(),
        limits: { default: 5, create: 5, upload: 5 },
        logger: log,
      });
      for (let i = 0; i < 5; i++) {
        expect(await limiter.consume('default', 'key:a')).toMatchObject({ limit: 5, remaining: 4 - i });
      }
      expect(log.warn).toHaveBeenCalledTimes(1);
      expect(log.warn.mock.calls[0]![1]).toMatch(/store failed/);
    } finally {
      dead.disconnect();
    }
  });

  it('still holds back one client that overruns the limit on this instance meanwhile', async () => {
    const dead = new Redis(1, '127.0.0.1', { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
    const limiter = createRateLimiter({
      redis: dead,
      keyPrefix: prefix(),
      limits: { default: 2, create: 2, upload: 2 },
      logger: logger(),
    });
    await limiter.consume('default', 'key:a');
    await limiter.consume('default', 'key:a');
    await rejection(limiter.consume('default', 'key:a'));
    dead.disconnect();
  });

  it('treats a store that does not answer in time as failed', async () => {
    // Accepts connections and never answers: the worst kind of outage.
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => sockets.push(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as net.AddressInfo).port;
    const hung = new Redis(port, '127.0.0.1', {
      enableReadyCheck: false,
      disableClientInfo: true,
      maxRetriesPerRequest: 1,
    });
    hung.on('error', () => undefined);
    await once(hung, 'ready');
    const log = logger();
    try {
      const limiter = createRateLimiter({
        redis: hung,
        keyPrefix: prefix(),
        limits: { default: 5, create: 5, upload: 5 },
        logger: log,
        storeTimeoutMs: 100,
      });
      const started = Date.now();
      expect(await limiter.consume('default', 'key:a')).toMatchObject({ limit: 5, remaining: 4 });
      expect(Date.now() - started).toBeLessThan(1000);
      expect(log.warn).toHaveBeenCalledTimes(1);
    } finally {
      hung.disconnect();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
