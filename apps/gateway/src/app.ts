import express, { type Express } from 'express';
import type { GatewayDeps } from './deps';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { mountRoute } from './http/mount-route';
import { rateLimitUnmatched } from './http/rate-limit-unrouted';
import { requestContext } from './http/request-context';
import { allRoutes, docs } from './routes';

/** The Express app without `listen`: what main.ts serves and what tests drive. */
export function createApp(deps: GatewayDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.TRUST_PROXY);
  // Express 5's default router is not strict: `/agents` and `/agents/` both match.
  app.use(requestContext(deps.logger));
  app.use('/docs', docs.assets);
  for (const route of allRoutes) app[route.method](route.path, mountRoute(route, deps));
  app.use(rateLimitUnmatched(deps));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
