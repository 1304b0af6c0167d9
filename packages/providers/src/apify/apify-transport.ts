import { AsyncLocalStorage } from 'node:async_hooks';
import { refusalOf } from '@weft/nodes';
import type { ApifyClientOptions } from 'apify-client';
import type { Fetch } from '../provider-adapter';

// apify-client sends its requests through axios, not fetch, and takes no
// AbortSignal per call. Two request interceptors (its one extension point)
// bridge that: one gives each request the signal of the node calling (kept in
// an AsyncLocalStorage around the call, as one client serves many nodes at
// once), the other sends the requests of an organization's base URL through
// the outbound-guarded fetch the routes give, so the address rules judge every
// connection, redirects included, exactly as for fetch-based SDKs.

export type RequestInterceptor = NonNullable<NonNullable<ApifyClientOptions['requestInterceptors']>[number]>;
type RequestConfig = Parameters<RequestInterceptor>[0];
type AxiosAdapter = Extract<NonNullable<RequestConfig['adapter']>, (...args: never[]) => unknown>;
type AdapterConfig = Parameters<AxiosAdapter>[0];
type AdapterResponse = Awaited<ReturnType<AxiosAdapter>>;

const callSignal = new AsyncLocalStorage<AbortSignal>();

/**
 * Runs `call` (apify-client calls) under `signal`: its requests are aborted
 * with it, and the promise rejects at once when it aborts (the SDK would
 * otherwise take a retry's delay to notice).
 */
export function withSignal<T>(signal: AbortSignal, call: () => Promise<T>): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    callSignal
      .run(signal, call)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Gives each request the caller's signal; an aborted caller's retries stop here (an error the SDK does not retry). */
export const signalInterceptor: RequestInterceptor = (config) => {
  const signal = callSignal.getStore();
  if (signal) {
    signal.throwIfAborted();
    config.signal = signal;
  }
  return config;
};

/** The query string of `config`, serialized as the SDK asks (booleans as 0/1, dates as ISO). */
function queryOf(config: AdapterConfig): string {
  if (!config.params) return '';
  const serializer = config.paramsSerializer;
  const serialize = typeof serializer === 'function' ? serializer : serializer?.serialize;
  if (serialize) return serialize(config.params as Record<string, unknown>);
  return new URLSearchParams(config.params as Record<string, string>).toString();
}

function headersOf(config: AdapterConfig): Record<string, string> {
  const raw = (config.headers?.toJSON?.() ?? config.headers ?? {}) as Record<string, unknown>;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || value === null || value === false) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}

/**
 * An axios adapter over `fetch`: the response body as a Buffer, as axios's
 * own Node adapter gives it (the SDK parses it by Content-Type). A refused
 * destination is thrown as is, which the SDK does not retry; other network
 * failures carry `request` and `config`, which it does.
 */
function fetchAdapter(fetch: Fetch): AxiosAdapter {
  return async (config: AdapterConfig): Promise<AdapterResponse> => {
    const url = new URL(config.url!, config.baseURL);
    const query = queryOf(config);
    if (query) url.search = url.search ? `${url.search}&${query}` : query;
    const signals = [
      config.signal as AbortSignal | undefined,
      config.timeout ? AbortSignal.timeout(config.timeout) : undefined,
    ];
    const signal = AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined));
    let response: Response;
    let data: Buffer;
    try {
      response = await fetch(url, {
        method: (config.method ?? 'get').toUpperCase(),
        headers: headersOf(config),
        body: config.data as string | Buffer | undefined,
        signal,
      });
      data = Buffer.from(await response.arrayBuffer());
    } catch (err) {
      if ((config.signal as AbortSignal | undefined)?.aborted || refusalOf(err)) throw err;
      throw Object.assign(new Error(`Apify request failed: ${(err as Error).message}`, { cause: err }), {
        config,
        request: {},
      });
    }
    return {
      data,
      status: response.status,
      statusText: response.statusText,
      headers: Object.fromEntries(response.headers),
      config,
      request: {},
    } as AdapterResponse;
  };
}

/** Sends every request of the client through `fetch` (the outbound-guarded fetch of an organization's base URL). */
export function fetchTransport(fetch: Fetch): RequestInterceptor {
  const adapter = fetchAdapter(fetch);
  return (config) => {
    config.adapter = adapter;
    return config;
  };
}
