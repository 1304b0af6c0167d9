import type { Request, Response } from 'express';
import type { GatewayDeps } from '../deps';
import type { AuthContext } from './auth-context';
import type { RateBucket } from './define-route';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface Authenticator {
  /** Resolves the caller from X-Api-Key or Authorization: Bearer <JWT>; throws 401/403. */
  authenticate(req: Request): Promise<AuthContext>;
  /** Checks Authorization: Bearer <ADMIN_TOKEN>; throws 401 (404 when admin is disabled). */
  authenticateAdmin(req: Request): void;
  /** Forgets a key this process has just revoked, before the Redis message reaches every instance. */
  forgetApiKey?(prefix: string): void;
}

export interface RequestRateLimiter {
  /** Counts one request; throws RateLimitedError (carrying the X-RateLimit-* headers) when over. */
  consume(bucket: RateBucket, subject: string): Promise<RateLimitState>;
}

export function setRateLimitHeaders(res: Response, state: RateLimitState): void {
  res.setHeader('X-RateLimit-Limit', String(state.limit));
  res.setHeader('X-RateLimit-Remaining', String(Math.max(0, state.remaining)));
  res.setHeader('X-RateLimit-Reset', String(state.resetSeconds));
}

/**
 * Authenticates, then counts the request. Callers that fail authentication
 * are still counted (by client address) so that the 401 carries the
 * X-RateLimit-* headers like every other response and key-guessing is throttled.
 */
export async function guardApiRequest(
  deps: GatewayDeps,
  req: Request,
  res: Response,
  bucket: RateBucket,
): Promise<AuthContext> {
  let auth: AuthContext | undefined;
  let authError: unknown;
  try {
    auth = await deps.authenticator.authenticate(req);
  } catch (err) {
    authError = err;
  }
  const state = await deps.rateLimiter.consume(bucket, auth?.subject ?? `ip:${req.ip}`);
  setRateLimitHeaders(res, state);
  if (!auth) throw authError;
  return auth;
}
