import { z } from '@weft/contracts';
import { defineRoute } from '../../http/define-route';

const Health = z.object({ status: z.literal('ok') }).openapi('Health');
const Readiness = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    checks: z.record(z.string(), z.enum(['ok', 'fail'])),
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

async function check(probe: () => Promise<unknown>): Promise<'ok' | 'fail'> {
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
    ]);
    return 'ok';
  } catch {
    return 'fail';
  }
}

export const readyz = defineRoute({
  method: 'get',
  path: '/readyz',
  summary: 'Readiness: database, Redis and object storage reachable',
  tags: ['health'],
  auth: 'public',
  responses: {
    200: { description: 'Ready', schema: Readiness },
    503: { description: 'A dependency is unreachable', schema: Readiness },
  },
  handler: async ({ deps }) => {
    const [database, redis, storage] = await Promise.all([
      check(() => deps.db.pool.query('SELECT 1')),
      check(() => deps.redis.ping()),
      check(() => deps.pingStorage()),
    ]);
    const checks = { database, redis, storage };
    const ok = Object.values(checks).every((c) => c === 'ok');
    return { status: ok ? 200 : 503, body: { status: ok ? 'ok' : 'unavailable', checks } };
  },
});
