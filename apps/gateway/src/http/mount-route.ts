import { AppError } from '@weft/errors';
import { setHttpRoute } from '@weft/telemetry';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import type { GatewayDeps } from '../deps';
import type { AnyRoute } from './define-route';
import { guardApiRequest } from './guard';
import { refuseDeepJson } from './json-body';
import { parsePart } from './validation';

/** Runs an Express middleware as a promise. */
function run(middleware: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    void middleware(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
  });
}

/** As type-is decides it: a body is coming when its length is announced or it is chunked. */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** A body express.json left alone: its Content-Type is not JSON's. */
function notJson(req: Request): AppError {
  const sent = req.headers['content-type']?.slice(0, 100);
  return new AppError(
    415,
    `The body must be JSON: send Content-Type: application/json (${sent ? `got ${sent}` : 'none was sent'})`,
  );
}

/** The headers `schema` names, as the request carries them (Node spells header names in lowercase). */
function headersFor(schema: z.ZodObject, req: Request): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(schema.shape)) out[name] = req.headers[name.toLowerCase()];
  return out;
}

/** Turns a route declaration into an Express handler: guard, parse, validate, run, respond. */
export function mountRoute(route: AnyRoute, deps: GatewayDeps): RequestHandler {
  const bucket = route.rateLimit ?? 'default';
  // Bodies are read only by routes that take one, and only once the caller is
  // known: a GET pays nothing for JSON parsing and strangers cannot make us parse.
  const parseJson = route.request?.body
    ? express.json({ limit: deps.config.BODY_LIMIT_BYTES, strict: false, verify: refuseDeepJson })
    : undefined;
  return async (req: Request, res: Response, next: NextFunction) => {
    // The request's span, when tracing, is named `<METHOD> <route template>`.
    setHttpRoute(route.path);
    // An answer holds one organization's data as it was at that moment: no
    // browser or proxy may keep it (handlers that stream or download set their own).
    if (route.auth !== 'public') res.setHeader('Cache-Control', 'no-store');
    try {
      let auth;
      if (route.auth === 'api') auth = await guardApiRequest(deps, req, res, bucket);
      else if (route.auth === 'admin') deps.authenticator.authenticateAdmin(req);
      if (parseJson) {
        await run(parseJson, req, res);
        if (req.body === undefined && hasBody(req)) throw notJson(req);
      }

      const { params, query, headers, body } = route.request ?? {};
      const result = await route.handler({
        req,
        res,
        params: params ? parsePart('path', params, req.params) : undefined,
        query: query ? parsePart('query', query, req.query) : undefined,
        headers: headers ? parsePart('header', headers, headersFor(headers, req)) : undefined,
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
