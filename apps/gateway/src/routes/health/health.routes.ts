import { z } from '@weft/contracts';
import { checkEvictionPolicy } from '@weft/queue';
import { defineRoute } from '../../http/define-route';

const Health = z.object({ status: z.literal('ok') }).openapi('Health');
const Readiness = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    checks: z.record(z.string(), z.enum(['ok', 'fail'])),
    /** What an operator must fix, when a failing check can say more than its name (the Redis eviction policy). */
    messages: z.array(z.string()).optional(),
  })
  .openapi('Readiness');

export const healthz = defineRoute({
  method: 'get',
  path: '/healthz',
  summary: 'Liveness: the process is up',
  tags: ['health'],
  auth: 'public',
  responses: { 200: { description: 'Up', schema: Health } },
  handler: async () => ({ status: 200, body: { status: 'ok' } }),
});

async function check(probe: () => Promise<unknown>, messages?: string[]): Promise<'ok' | 'fail'> {
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
    ]);
    return 'ok';
  } catch (err) {
    if (messages && err instanceof ReadinessProblem) messages.push(err.message);
    return 'fail';
  }
}

/** A failed check whose message is safe and useful to show on the public /readyz. */
class ReadinessProblem extends Error {}

export const readyz = defineRoute({
  method: 'get',
  path: '/readyz',
  summary: "Readiness: database, Redis and object storage reachable, and Redis' eviction policy noeviction",
  tags: ['health'],
  auth: 'public',
  responses: {
    200: { description: 'Ready', schema: Readiness },
    503: { description: 'A dependency is unreachable', schema: Readiness },
  },
  handler: async ({ deps }) => {
    const messages: string[] = [];
    const [database, redis, storage, redis_policy] = await Promise.all([
      check(() => deps.db.pool.query('SELECT 1')),
      check(() => deps.redis.ping()),
      check(() => deps.pingStorage()),
      // Redis evicting keys would drop queued work silently (packages/queue eviction-policy.ts).
      check(async () => {
        const policy = await checkEvictionPolicy(deps.redis);
        if (!policy.ok) throw new ReadinessProblem(policy.message);
      }, messages),
    ]);
    const checks = { database, redis, storage, redis_policy };
    const ok = Object.values(checks).every((c) => c === 'ok');
    const body = { status: ok ? 'ok' : 'unavailable', checks, ...(messages.length > 0 ? { messages } : {}) };
    return { status: ok ? 200 : 503, body };
  },
});
