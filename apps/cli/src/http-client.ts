// The one HTTP client of the `weft` command: JSON in, JSON out, non-2xx as an
// HttpError carrying the server's `detail`. Used by `weft admin` and `weft publish`.

export type FetchFn = typeof fetch;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export interface HttpClientOptions {
  /** e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  /** Sent with every request, e.g. Authorization or X-Api-Key. */
  headers?: Record<string, string>;
  fetch?: FetchFn;
  timeoutMs?: number;
}

export interface HttpClient {
  request<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  get<T = unknown>(path: string): Promise<T>;
  post<T = unknown>(path: string, body?: unknown): Promise<T>;
  delete<T = unknown>(path: string): Promise<T>;
}

/** `detail` as one line per problem: a string (most errors) or the 422 list of {loc, msg}. */
export function describeErrorBody(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('detail' in body)) return undefined;
  const detail = (body as { detail: unknown }).detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).join('.')}: ${d.msg ?? 'invalid'}`)
      .join('\n');
  }
  return undefined;
}

export function createHttpClient({
  baseUrl,
  headers = {},
  fetch: fetchFn = fetch,
  timeoutMs = 30_000,
}: HttpClientOptions): HttpClient {
  const base = baseUrl.replace(/\/+$/, '');

  async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const url = `${base}${path.startsWith('/') ? path : `/${path}`}`;
    let res: Response;
    try {
      res = await fetchFn(url, {
        method,
        headers: {
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const reason = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
      throw new HttpError(0, undefined, `Cannot reach ${base}: ${reason}`);
    }
    const text = await res.text();
    let parsed: unknown = undefined;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (!res.ok) {
      const detail = describeErrorBody(parsed) ?? (typeof parsed === 'string' ? parsed : res.statusText);
      throw new HttpError(res.status, parsed, `${method} ${path} failed with ${res.status}: ${detail}`);
    }
    return parsed as T;
  }

  return {
    request,
    get: (path) => request('GET', path),
    post: (path, body) => request('POST', path, body ?? {}),
    delete: (path) => request('DELETE', path),
  };
}
