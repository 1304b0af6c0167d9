import { createFalClient, type FalClient, type RequestMiddleware } from '@fal-ai/client';
import { refusalOf } from '@weft/nodes';
import type { ProviderCredential } from '../credentials';
import type { Fetch } from '../provider-adapter';
import { sleep } from './fal-wait';

// A client of @fal-ai/client for one credential. The SDK calls fixed hosts
// (queue.fal.run for the queue, rest.fal.ai for storage); its request
// middleware sends them to the credential's base URL instead, path and query
// kept, so a proxy or a compatible server serves both. The file upload itself
// goes to the URL the storage API answered, through the same fetch.

/** fal's own hosts, which a base URL replaces. */
const FAL_HOST = /^https:\/\/([a-z0-9-]+\.)*fal\.(run|ai)(?=\/|$)/;

/** The longest Retry-After honoured: a longer one is the node's timeout's to judge. */
const MAX_RETRY_AFTER_MS = 60_000;

/** Sends the SDK's requests to `baseURL` instead of fal's hosts. */
export function toBaseUrl(baseURL: string): RequestMiddleware {
  const base = baseURL.replace(/\/+$/, '');
  return async (request) => ({ ...request, url: request.url.replace(FAL_HOST, base) });
}

/** The delay a 429 or 503 asks for, in ms (Retry-After in seconds or as a date). */
function retryAfterMs(response: Response): number | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  const header = response.headers.get('retry-after');
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : undefined;
}

/**
 * The SDK retries 429 and 502-504 with its own backoff but ignores
 * Retry-After: a response asking for a delay is handed to it only once the
 * delay has passed, so its retry never comes sooner than fal asked. It also
 * retries any failed fetch: a destination the outbound rules refuse is
 * thrown as the refusal itself, which it does not retry.
 */
export function honouringRetryAfter(fetch: Fetch): Fetch {
  return async (input, init) => {
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (err) {
      throw refusalOf(err) ?? err;
    }
    const delay = retryAfterMs(response);
    if (delay) await sleep(delay, init?.signal ?? undefined);
    return response;
  };
}

export function falClient(credential: ProviderCredential, fetch: Fetch | undefined): FalClient {
  return createFalClient({
    credentials: credential.secret,
    fetch: honouringRetryAfter(fetch ?? globalThis.fetch),
    ...(credential.baseURL ? { requestMiddleware: toBaseUrl(credential.baseURL) } : {}),
  });
}
