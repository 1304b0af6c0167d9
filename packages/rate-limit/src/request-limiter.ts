import { RateLimitedError } from '@weft/errors';
import type { Cluster, Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

// Per-subject request limits over fixed one-minute windows, counted in Redis so
// that every gateway instance shares one budget per API key.
//
// "Limited" and "the store failed" are different results. Only the first is a
// 429. When Redis errors, times out or is not connected, the request is counted
// in an in-process limiter instead: availability beats strictness here. A Redis
// outage must not take the whole API down with 429s (or 500s), and the in-process
// limiter still holds back a single client that hammers one instance. The cost is
// that, while Redis is away, each instance grants the full budget on its own.

/** `create`: POST /runs and /app-runs; `upload`: POST /assets/upload (docs/api.md#rate-limits counts them apart). */
export const RATE_BUCKETS = ['default', 'create', 'upload'] as const;
export type RateBucket = (typeof RATE_BUCKETS)[number];

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** Structurally the gateway's `RequestRateLimiter` (apps/gateway/src/http/guard.ts). */
export interface RequestRateLimiter {
  /** Counts one request; throws RateLimitedError (carrying the X-RateLimit-* headers) when over. */
  consume(bucket: RateBucket, subject: string): Promise<RateLimitState>;
}

/** The part of a pino logger this module uses. */
export interface WarnLogger {
  warn(obj: object, msg: string): void;
}

export interface RateLimiterOptions {
  redis: Redis | Cluster;
  /** Namespaces the counters, e.g. `${REDIS_PREFIX}:rl`. */
  keyPrefix: string;
  /** Requests per minute per subject, per bucket. */
  limits: Record<RateBucket, number>;
  logger: WarnLogger;
  /** A store answer slower than this counts as a store failure. */
  storeTimeoutMs?: number;
  /** Told about every refusal (the gateway's weft_rate_limit_rejections_total). */
  onRejected?: (bucket: RateBucket) => void;
}

const WINDOW_SECONDS = 60;
/** At most one "store failed" warning per this interval, so an outage does not flood the log. */
const WARN_INTERVAL_MS = 10_000;

class StoreTimeoutError extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(`rate limit store did not answer in ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function toState(limit: number, res: RateLimiterRes): RateLimitState {
  return {
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(0, Math.ceil(res.msBeforeNext / 1000)),
  };
}

function limitedError(state: RateLimitState): RateLimitedError {
  const err = new RateLimitedError(Math.max(1, state.resetSeconds));
  // The error handler copies these onto the 429, so it carries the same headers as every other response.
  Object.assign(err.headers, {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': String(state.resetSeconds),
  });
  return err;
}

export function createRateLimiter({
  redis,
  keyPrefix,
  limits,
  logger,
  storeTimeoutMs = 1000,
  onRejected,
}: RateLimiterOptions): RequestRateLimiter {
  const buckets = {} as Record<RateBucket, { limit: number; store: RateLimiterRedis; fallback: RateLimiterMemory }>;
  for (const bucket of RATE_BUCKETS) {
    const points = limits[bucket];
    buckets[bucket] = {
      limit: points,
      store: new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${keyPrefix}:${bucket}`,
        points,
        duration: WINDOW_SECONDS,
        // Fail at once (and fall back) while the connection is down instead of waiting for it.
        rejectIfRedisNotReady: true,
      }),
      fallback: new RateLimiterMemory({ keyPrefix: `${keyPrefix}:${bucket}`, points, duration: WINDOW_SECONDS }),
    };
  }

  let lastWarnAt = 0;
  const warnStoreFailed = (err: unknown) => {
    const now = Date.now();
    if (now - lastWarnAt < WARN_INTERVAL_MS) return;
    lastWarnAt = now;
    logger.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'rate limit store failed; counting requests in process memory until it recovers',
    );
  };

  async function consumeFallback(bucket: RateBucket, subject: string): Promise<RateLimitState> {
    const { limit, fallback } = buckets[bucket];
    try {
      return toState(limit, await fallback.consume(subject));
    } catch (res) {
      if (res instanceof RateLimiterRes) {
        onRejected?.(bucket);
        throw limitedError(toState(limit, res));
      }
      throw res;
    }
  }

  return {
    async consume(bucket, subject) {
      const { limit, store } = buckets[bucket];
      try {
        return toState(limit, await withTimeout(store.consume(subject), storeTimeoutMs));
      } catch (res) {
        // rate-limiter-flexible rejects with a RateLimiterRes when over the limit, with an Error when the store failed.
        if (res instanceof RateLimiterRes) {
          onRejected?.(bucket);
          throw limitedError(toState(limit, res));
        }
        warnStoreFailed(res);
        return consumeFallback(bucket, subject);
      }
    },
  };
}
