import { WeftApiError } from './errors';
import { parseRetryAfter, sendWithRetries, type RetryMode, type RetryOptions } from './retry';

// How every request leaves the SDK: the base URL and credentials, a timeout per
// attempt, and the retry policy of its method.

export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

export interface TransportOptions {
  baseUrl: string;
  headers: Record<string, string>;
  retry: RetryOptions;
  /** Per attempt, for ordinary requests; event streams, uploads and downloads have none. */
  timeoutMs: number;
  fetch: FetchLike;
}

export interface SendOptions {
  method: string;
  /** Path and query, e.g. `/runs/…/events`. */
  path: string;
  headers?: Record<string, string>;
  /** Built again for each attempt (a stream can be sent once: give mode `none` for those). */
  body?: () => NonNullable<RequestInit['body']>;
  mode?: RetryMode;
  signal?: AbortSignal;
  /** false: no timeout (streams, files). */
  timeoutMs?: number | false;
}

/** Requests that change nothing are retried on 429, 5xx and network errors; others only on 429. */
export function defaultMode(method: string): RetryMode {
  return ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(method.toUpperCase()) ? 'all' : 'rate-limit';
}

export class Transport {
  readonly baseUrl: string;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  get headers(): Record<string, string> {
    return this.options.headers;
  }

  /** A fetch for openapi-fetch: each attempt sends a clone of the request, with its own timeout. */
  fetchWith(mode?: RetryMode): (request: Request) => Promise<Response> {
    return (request) =>
      sendWithRetries(
        {
          method: request.method,
          url: request.url,
          mode: mode ?? defaultMode(request.method),
          signal: request.signal,
          send: () =>
            this.options.fetch(request.clone(), { signal: this.attemptSignal(request.signal, this.options.timeoutMs) }),
        },
        this.options.retry,
      );
  }

  /** Sends a request the typed client does not describe (streams, multipart, files). */
  send(options: SendOptions): Promise<Response> {
    const url = `${this.baseUrl}${options.path}`;
    const timeout = options.timeoutMs === undefined ? this.options.timeoutMs : options.timeoutMs;
    return sendWithRetries(
      {
        method: options.method,
        url,
        mode: options.mode ?? defaultMode(options.method),
        signal: options.signal,
        send: () => {
          const body = options.body?.();
          return this.options.fetch(url, {
            method: options.method,
            headers: { ...this.options.headers, ...options.headers },
            body,
            signal: this.attemptSignal(options.signal, timeout),
            // Streamed bodies must say so; undici sends them chunked.
            ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
          } as RequestInit);
        },
      },
      this.options.retry,
    );
  }

  private attemptSignal(signal: AbortSignal | undefined, timeoutMs: number | false): AbortSignal | undefined {
    if (timeoutMs === false) return signal;
    const timeout = AbortSignal.timeout(timeoutMs);
    return signal ? AbortSignal.any([signal, timeout]) : timeout;
  }
}

/**
 * The WeftApiError of a refused answer, reading its body. `url` is for answers
 * built rather than fetched (an XMLHttpRequest's), whose `response.url` is empty.
 */
export async function apiError(
  method: string,
  response: Response,
  body?: unknown,
  url: string = response.url,
): Promise<WeftApiError> {
  let parsed = body;
  if (parsed === undefined) {
    const text = await response.text().catch(() => '');
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return new WeftApiError(
    response.status,
    parsed,
    method,
    pathOf(url),
    parseRetryAfter(response.headers.get('retry-after')),
  );
}

/** What openapi-fetch resolves to; `data` when the answer is 2xx. */
export interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a 2xx answer, or the WeftApiError of any other. */
export async function unwrap<T>(method: string, outcome: Promise<Outcome<T>>): Promise<T> {
  const { data, error, response } = await outcome;
  if (!response.ok) throw await apiError(method, response, error ?? null);
  return data as T;
}

function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}
