import { pingDatabase } from '@weft/db';
import { z } from '@weft/contracts';
import { readiness } from '@weft/health';
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
    const body = await readiness({
      pingDatabase: () => pingDatabase(deps.db),
      redis: deps.redis,
      pingStorage: () => deps.pingStorage(),
    });
    return { status: body.status === 'ok' ? 200 : 503, body };
  },
});
