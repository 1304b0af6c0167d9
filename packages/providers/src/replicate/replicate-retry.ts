import { setTimeout as sleep } from 'node:timers/promises';
import type { Fetch } from '../provider-adapter';

// The SDK retries a 429 (and a GET's 5xx) itself, but five times at once: no
// delay, Retry-After ignored, and not configurable. The fetch it is given does
// the retrying instead, with backoff and jitter honouring Retry-After; the
// SDK's own re-tries of a request whose retries are spent get the same final
// answer, not another request.

export interface RetryPolicy {
  /** Retries after the first answer. */
  retries: number;
  /** The first backoff, doubled at each retry (before jitter). */
  baseDelayMs: number;
  /** The longest wait between two tries, Retry-After included. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, baseDelayMs: 500, maxDelayMs: 30_000 };

/**
 * Whether an answer is worth asking again: a 429 always, a 5xx only for a GET
 * (a create answered 5xx may have made a prediction: asking again could make a
 * second one, billed too).
 */
const retryable = (method: string, status: number) => status === 429 || (method === 'GET' && status >= 500);

/** Retry-After in ms (seconds or an HTTP date); undefined when absent or unreadable. */
function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** `fetch` retrying what `retryable` says, the wait aborted with the request's signal. */
export function retryingFetch(fetch: Fetch, policy: RetryPolicy = DEFAULT_RETRY): Fetch {
  // Keyed by the request's init object, which the SDK passes again to each of its own tries.
  const spent = new WeakMap<object, Response>();
  return async (input, init) => {
    const final = init && spent.get(init);
    if (final) return final.clone();
    const method = (init?.method ?? 'GET').toUpperCase();
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(input, init);
      if (!retryable(method, response.status)) return response;
      if (attempt >= policy.retries) {
        if (init) spent.set(init, response.clone());
        return response;
      }
      const backoff = policy.baseDelayMs * 2 ** attempt;
      const delay = Math.min(policy.maxDelayMs, retryAfterMs(response) ?? backoff * (0.5 + Math.random()));
      await response.body?.cancel().catch(() => undefined);
      await sleep(delay, undefined, init?.signal ? { signal: init.signal } : {});
    }
  };
}
