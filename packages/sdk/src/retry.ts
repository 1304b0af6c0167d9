import { WeftConnectionError } from './errors';

// Retries of 429, 5xx and broken connections (docs/api.md#rate-limits and
// #dependency-outages): Retry-After when the answer gives one, otherwise
// exponential backoff with full jitter.

export interface RetryOptions {
  /** Attempts in all, the first included (default 5; 1 turns retries off). */
  maxAttempts: number;
  /** First backoff ceiling when no Retry-After is given (default 500 ms); doubles each attempt. */
  baseDelayMs: number;
  /** Largest backoff without Retry-After (default 10 s). */
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the answer is returned (default 60 s). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
};

/**
 * What may be sent again. `all`: 429, 5xx and network errors (requests that
 * change nothing, or creates that carry an external_id). `rate-limit`: only
 * 429, which the gateway answers before doing or claiming anything.
 */
export type RetryMode = 'all' | 'rate-limit' | 'none';

/** Statuses that say "try again later"; 501 is an answer, not an outage. */
const TRANSIENT = new Set([429, 500, 502, 503, 504]);

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Full jitter: a random delay up to base × 2^(attempt-1), capped. */
export function backoffDelay(attempt: number, options: RetryOptions, random = Math.random): number {
  return Math.round(random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1)));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface Attempt {
  method: string;
  url: string;
  mode: RetryMode;
  signal?: AbortSignal;
  /** Sends the request once; called again for each attempt, so it must build a fresh body. */
  send(): Promise<Response>;
}

/**
 * Sends until an answer that is not worth retrying, or attempts run out (then
 * the last answer is returned as it is, for the caller to report). A network
 * error that is not retried becomes a WeftConnectionError; an abort is rethrown.
 */
export async function sendWithRetries(attempt: Attempt, options: RetryOptions): Promise<Response> {
  for (let n = 1; ; n++) {
    const last = n >= options.maxAttempts;
    let response: Response;
    try {
      response = await attempt.send();
    } catch (err) {
      if (attempt.signal?.aborted) throw attempt.signal.reason;
      if (last || attempt.mode !== 'all' || !isNetworkError(err)) {
        throw isNetworkError(err) ? new WeftConnectionError(attempt.method, attempt.url, err) : err;
      }
      await sleep(backoffDelay(n, options), attempt.signal);
      continue;
    }
    const retryable =
      attempt.mode === 'all'
        ? TRANSIENT.has(response.status)
        : attempt.mode === 'rate-limit' && response.status === 429;
    if (!retryable || last) return response;
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    if (retryAfter !== undefined && retryAfter > options.maxRetryAfterMs) return response;
    // The body of an answer we drop must be read or cancelled, or its connection is not reused.
    await response.body?.cancel().catch(() => undefined);
    await sleep(retryAfter ?? backoffDelay(n, options), attempt.signal);
  }
}

/**
 * fetch() rejects with a TypeError ("fetch failed") when no answer came, and an
 * attempt's own timeout with a TimeoutError; anything else is a bug to surface.
 */
export function isNetworkError(err: unknown): boolean {
  // By name: fetch's TypeError may come from another realm than this module's (a test runner's sandbox).
  const name = (err as { name?: string })?.name;
  return name === 'TypeError' || name === 'TimeoutError' || name === 'SocketError';
}
