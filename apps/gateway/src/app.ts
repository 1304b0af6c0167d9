import express, { type Express } from 'express';
import { createQueueBoard, QUEUE_BOARD_PATH } from './admin/queue-board';
import { CONSOLE_PATH, consoleStatic } from './console/console-static';
import type { GatewayDeps } from './deps';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { methodNotAllowed } from './http/method-not-allowed';
import { mountRoute } from './http/mount-route';
import { parseQuery } from './http/query-parser';
import { rateLimitUnmatched } from './http/rate-limit-unrouted';
import { requestContext } from './http/request-context';
import { labelRoute, measureRequests } from './metrics/http-duration';
import { allRoutes, docs } from './routes';

/** The Express app without `listen`: what main.ts serves and what tests drive. */
export function createApp(deps: GatewayDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // No ETag hashed over every JSON answer: API answers are `no-store`, so
  // nothing revalidates them, and hashing a page costs as much as
  // serialising it. Static files (console, docs) keep serve-static's own.
  app.set('etag', false);
  // Express's final handler, reached only if errorHandler itself failed,
  // renders the error's stack in HTML unless env is production; NODE_ENV is
  // unset under `npm run dev`. Our handler answers JSON; this is the backstop.
  app.set('env', 'production');
  app.set('trust proxy', deps.config.TRUST_PROXY);
  app.set('query parser', parseQuery);
  // Express 5's default router is not strict: `/agents` and `/agents/` both match.
  app.use(requestContext(deps.logger));
  app.use(measureRequests(deps.metrics.http));
  app.use('/docs', labelRoute('/docs'), docs.assets);
  // The web console's static files, outside the OpenAPI document; it answers every path under /console itself.
  app.use(CONSOLE_PATH, labelRoute(CONSOLE_PATH), consoleStatic(deps));
  // An operator tool with its own pages and JSON API, outside the OpenAPI document.
  // Without ADMIN_TOKEN it is not mounted: its paths answer 404 like any unknown path.
  if (deps.config.ADMIN_TOKEN) {
    app.use(
      QUEUE_BOARD_PATH,
      labelRoute(QUEUE_BOARD_PATH),
      ...createQueueBoard(deps.observedQueues, deps.config.ADMIN_TOKEN),
    );
  }
  for (const route of allRoutes) app[route.method](route.path, mountRoute(route, deps));
  app.use(rateLimitUnmatched(deps));
  // Admin routes are unknown paths while /admin is disabled.
  app.use(methodNotAllowed(allRoutes.filter((route) => route.auth !== 'admin' || deps.config.ADMIN_TOKEN)));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
