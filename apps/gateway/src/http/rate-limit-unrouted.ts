import { RateLimitedError } from '@weft/errors';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { GatewayDeps } from '../deps';
import { setRateLimitHeaders } from './guard';

// interface.md 8.1: every response carries X-RateLimit-*. Api routes get them
// from guardApiRequest. Two kinds of response never reach a route's guard:
// - unmatched paths (the 404 fallback), and
// - requests rejected before routing, i.e. by the JSON body parser (422 bad
//   JSON, 413 too large, 415 bad encoding).
// Both are counted here exactly like an api request: the caller is identified
// if the credentials are good (a cached look-up), else by address. The price is
// the same single Redis round trip every api request pays, and it means probing
// random paths is throttled like everything else.

async function countRequest(deps: GatewayDeps, req: Request, res: Response): Promise<void> {
  let subject = `ip:${req.ip}`;
  try {
    subject = (await deps.authenticator.authenticate(req)).subject;
  } catch {
    // Bad or missing credentials do not change the answer here (404 or the parser's error), only who is counted.
  }
  setRateLimitHeaders(res, await deps.rateLimiter.consume('default', subject));
}

/** Mounted just before the 404 handler. */
export function rateLimitUnmatched(deps: GatewayDeps): RequestHandler {
  return (req, res, next) => {
    countRequest(deps, req, res).then(() => next(), next);
  };
}

/** Mounted just before the error handler; passes the original error on. */
export function rateLimitEarlyErrors(deps: GatewayDeps): ErrorRequestHandler {
  return (err, req, res, next) => {
    // `req.route` is set once a route took the request: its own guard (api) or its
    // auth rule (admin, public) already decided about the headers.
    if (req.route || res.headersSent || res.hasHeader('X-RateLimit-Limit') || err instanceof RateLimitedError) {
      next(err);
      return;
    }
    countRequest(deps, req, res).then(
      () => next(err),
      (limitErr: unknown) => next(limitErr instanceof RateLimitedError ? limitErr : err),
    );
  };
}
