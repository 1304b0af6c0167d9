import { startDedicatedRedis, type DedicatedRedis } from '@weft/testing';
import { Redis } from 'ioredis';
import request from 'supertest';
import { startTestGateway, type TestGateway } from '../../testing/test-gateway';

// /readyz fails while Redis may evict keys (it would drop queued work
// silently), with a message saying what to set. A redis-server of the test's
// own: the shared Redis must never be reconfigured.

let gw: TestGateway;
let lru: DedicatedRedis;

// BullMQ warns on the console for each connection it opens to such a Redis: expected here.
const warn = console.warn.bind(console);
jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
  if (!String(args[0]).includes('Eviction policy')) warn(...args);
});

beforeAll(async () => {
  // One after the other: afterAll must be able to stop whatever started.
  lru = await startDedicatedRedis(['--maxmemory-policy', 'allkeys-lru']);
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
  await lru?.stop();
});

test('/readyz answers 503 with the reason while Redis has an eviction policy, 200 once it is noeviction', async () => {
  const gateway = await gw.startSibling({ REDIS_URL: lru.url });
  const admin = new Redis(lru.url);
  try {
    const res = await request(gateway.app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      status: 'unavailable',
      checks: { database: 'ok', redis: 'ok', storage: 'ok', redis_policy: 'fail' },
      messages: [
        "Redis has maxmemory-policy allkeys-lru: under memory pressure it may silently drop queued work. Weft requires 'maxmemory-policy noeviction' (set it in redis.conf or your provider's parameter group).",
      ],
    });
    // Read on every probe: fixing the configuration makes the gateway ready without a restart.
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    const fixed = await request(gateway.app).get('/readyz');
    expect(fixed.status).toBe(200);
    expect(fixed.body).toEqual({
      status: 'ok',
      checks: { database: 'ok', redis: 'ok', storage: 'ok', redis_policy: 'ok' },
    });
  } finally {
    admin.disconnect();
    await gateway.close();
  }
});
