import { z } from '@weft/contracts';
import { AppError, NotFoundError } from '@weft/errors';
import express, { type Express } from 'express';
import type { GatewayDeps } from '../deps';
import { defineRoute, type AnyRoute } from '../http/define-route';
import { errorHandler } from '../http/error-handler';
import { mountRoute } from '../http/mount-route';
import type { TestGateway } from './test-gateway';

// Stand-in `api` routes for tests of the request machinery (authentication,
// rate limits, error responses) that must not depend on any resource's routes:
// - GET /_test/whoami echoes the caller's AuthContext;
// - POST /_test/things/:id (create bucket) validates a uuid and a body, then answers 404;
// - GET /_test/bug throws a TypeError, a bug of ours;
// - GET /_test/unserialisable throws an AppError whose body JSON cannot hold (a BigInt).

const whoami = defineRoute({
  method: 'get',
  path: '/_test/whoami',
  summary: 'test',
  tags: ['test'],
  auth: 'api',
  responses: {},
  handler: async ({ auth }) => ({ status: 200, body: auth }),
});

const things = defineRoute({
  method: 'post',
  path: '/_test/things/:id',
  summary: 'test',
  tags: ['test'],
  auth: 'api',
  rateLimit: 'create',
  request: { params: z.object({ id: z.uuid() }), body: z.object({ n: z.number() }) },
  responses: {},
  handler: async () => {
    throw new NotFoundError('Thing');
  },
});

const bug = defineRoute({
  method: 'get',
  path: '/_test/bug',
  summary: 'test',
  tags: ['test'],
  auth: 'api',
  responses: {},
  handler: async () => {
    (undefined as unknown as { property: string }).property.trim();
    return { status: 200 };
  },
});

const unserialisable = defineRoute({
  method: 'get',
  path: '/_test/unserialisable',
  summary: 'test',
  tags: ['test'],
  auth: 'api',
  responses: {},
  handler: async () => {
    throw new AppError(400, 'Unserialisable', { value: BigInt(1) });
  },
});

/** The gateway's app (or `app` built over `deps`) with the test routes in front of it. */
export function withTestRoutes(gw: TestGateway, deps: GatewayDeps = gw.deps, app: Express = gw.app): Express {
  const harness = express();
  harness.set('trust proxy', deps.config.TRUST_PROXY);
  for (const route of [whoami, things, bug, unserialisable] as AnyRoute[])
    harness[route.method](route.path, mountRoute(route, deps));
  harness.use(app);
  harness.use(errorHandler);
  return harness;
}
