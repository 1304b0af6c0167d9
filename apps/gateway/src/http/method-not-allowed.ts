import express, { type Router } from 'express';
import type { AnyRoute } from './define-route';

/**
 * Answers 405 with `Allow` for a path some route serves under other methods;
 * other paths go on to the 404. Built from the route table and matched by
 * Express's own router, so a path counts as known exactly when a route would
 * take it. HEAD is allowed wherever GET is: Express serves it from the GET route.
 */
export function methodNotAllowed(routes: readonly AnyRoute[]): Router {
  const methodsByPath = new Map<string, Set<string>>();
  for (const route of routes) {
    const methods = methodsByPath.get(route.path) ?? new Set<string>();
    methods.add(route.method.toUpperCase());
    if (route.method === 'get') methods.add('HEAD');
    methodsByPath.set(route.path, methods);
  }
  const allowed = new WeakMap<express.Request, Set<string>>();
  const router = express.Router();
  // Several templates may match one path (`/runs/:run_id` and a literal sibling): Allow is their union.
  for (const [path, methods] of methodsByPath) {
    router.all(path, (req, _res, next) => {
      const found = allowed.get(req) ?? new Set<string>();
      for (const m of methods) found.add(m);
      allowed.set(req, found);
      next();
    });
  }
  router.use((req, res, next) => {
    const found = allowed.get(req);
    if (!found) {
      next();
      return;
    }
    const allow = [...found].sort().join(', ');
    res.setHeader('Allow', allow);
    res.status(405).json({ detail: `Method ${req.method} not allowed on this path; allowed: ${allow}` });
  });
  return router;
}
