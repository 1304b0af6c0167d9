import { refusalOf } from '@weft/nodes';

// One attempt at delivering: a POST that never reaches an address the outbound
// rules refuse (the guarded fetch checks every connection, redirects included),
// with one time limit over the whole attempt.

export interface AttemptOutcome {
  /** A 2xx came back. */
  ok: boolean;
  /** The final answer's status, null when none came. */
  statusCode: number | null;
  /** Why it is not a success, said for the organization that reads it. */
  error: string | null;
  durationMs: number;
}

export interface PostRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  maxRedirects: number;
}

/** Followed by sending the same request to the new location; 303 (See Other) is an answer like any other. */
const FOLLOWED = new Set([301, 302, 307, 308]);

export async function postWebhook(fetchFn: typeof globalThis.fetch, req: PostRequest): Promise<AttemptOutcome> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null): AttemptOutcome => ({
    ok: error === null,
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  const signal = AbortSignal.timeout(req.timeoutMs);
  let target = new URL(req.url);
  try {
    for (let hop = 0; ; hop++) {
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        return done(null, `Refused a redirect to ${target.protocol} (only http and https are called)`);
      }
      const res = await fetchFn(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Weft-Webhooks/1', ...req.headers },
        body: req.body,
        redirect: 'manual',
        signal,
      });
      // The answer's body tells nothing the status does not; dropping it frees the connection's slot.
      await res.body?.cancel().catch(() => undefined);
      const location = res.headers.get('location');
      if (FOLLOWED.has(res.status) && location) {
        if (hop >= req.maxRedirects) return done(res.status, `More than ${req.maxRedirects} redirects`);
        target = new URL(location, target);
        continue;
      }
      if (res.status >= 200 && res.status < 300) return done(res.status, null);
      return done(res.status, `The receiver answered ${res.status}`);
    }
  } catch (err) {
    const refused = refusalOf(err);
    if (refused) return done(null, `Refused: ${refused.message}`);
    if (signal.aborted) return done(null, `No answer within ${req.timeoutMs / 1000} s`);
    return done(null, `Could not reach ${target.host}: ${causeOf(err)}`);
  }
}

/** The innermost message (fetch wraps connection errors as "fetch failed"). */
function causeOf(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  const code = (e as { code?: string }).code;
  return e instanceof Error ? `${e.message}${code && !e.message.includes(code) ? ` (${code})` : ''}` : String(e);
}
