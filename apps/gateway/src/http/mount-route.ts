import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { GatewayDeps } from '../deps';
import type { AnyRoute } from './define-route';
import { guardApiRequest } from './guard';
import { parsePart } from './validation';

/** Turns a route declaration into an Express handler: guard, validate, run, respond. */
export function mountRoute(route: AnyRoute, deps: GatewayDeps): RequestHandler {
  const bucket = route.rateLimit ?? 'default';
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      let auth;
      if (route.auth === 'api') auth = await guardApiRequest(deps, req, res, bucket);
      else if (route.auth === 'admin') deps.authenticator.authenticateAdmin(req);

      const { params, query, body } = route.request ?? {};
      const result = await route.handler({
        req,
        res,
        params: params ? parsePart('path', params, req.params) : undefined,
        query: query ? parsePart('query', query, req.query) : undefined,
        body: body ? parsePart('body', body, req.body) : undefined,
        auth,
        deps,
      } as Parameters<AnyRoute['handler']>[0]);
      if (!result) return;
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
      if (result.body === undefined) res.status(result.status).end();
      else res.status(result.status).json(result.body);
    } catch (err) {
      next(err);
    }
  };
}
