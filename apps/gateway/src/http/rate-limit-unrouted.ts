import type { Request, RequestHandler, Response } from 'express';
import type { GatewayDeps } from '../deps';
import { setRateLimitHeaders } from './guard';

// docs/api.md#rate-limits: every response carries X-RateLimit-*. Api routes get them
// from guardApiRequest (bodies are parsed after it, so parser errors carry them
// too). Unmatched paths never reach a route's guard, so the 404 fallback is
// counted here exactly like an api request: the caller is identified
// if the credentials are good (a cached look-up), else by address. The price is
// the same single Redis round trip every api request pays, and it means probing
// random paths is throttled like everything else.

async function countRequest(deps: GatewayDeps, req: Request, res: Response): Promise<void> {
  let subject = `ip:${req.ip}`;
  try {
    subject = (await deps.authenticator.authenticate(req)).subject;
  } catch {
    // Bad or missing credentials do not change the answer (404), only who is counted.
  }
  setRateLimitHeaders(res, await deps.rateLimiter.consume('default', subject));
}

/** Mounted just before the 404 handler. */
export function rateLimitUnmatched(deps: GatewayDeps): RequestHandler {
  return (req, res, next) => {
    countRequest(deps, req, res).then(() => next(), next);
  };
}
