import http from 'node:http';
import { Readable } from 'node:stream';
import type tls from 'node:tls';
import { Agent, type Dispatcher } from 'undici';

// GETs of presigned URLs through undici, whose parser hands each body chunk
// on as a view of the socket's read rather than a copy, as Node's http client
// makes. The body is a Readable of ours fed straight from undici's dispatch
// handler: one stream layer between the store's socket and the reader, and
// the store's failures reported in the shapes errors.ts tells apart.

export interface StoreResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body as the store frames it; destroying it early closes the connection. */
  body: Readable;
}

export interface ObjectReaderOptions {
  /**
   * A request whose answer or body brings no byte for this long fails with a
   * TimeoutError; time while the body waits for its reader does not count.
   */
  timeoutMs: number;
  /** How long an idle connection is kept for the next read (below the store's own idle timeout). */
  keepIdleMs?: number;
  /** TLS options for https: endpoints (tests pass a CA). */
  tls?: tls.ConnectionOptions;
}

export interface ObjectReader {
  /** Sends `GET url` with `headers`; answers the response once its head has arrived. */
  get(url: URL, headers: Record<string, string>, what: string): Promise<StoreResponse>;
  /** Open connections: reading a response, and idle in the pool. */
  connections(): { busy: number; idle: number };
  close(): void;
}

/** undici's codes for a connection that closed under a request, or a body shorter than its Content-Length. */
const CUT_CODES = new Set(['UND_ERR_SOCKET', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'ECONNRESET', 'EPIPE']);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

export function createObjectReader(options: ObjectReaderOptions): ObjectReader {
  const keepIdleMs = options.keepIdleMs ?? 4_000;
  const agent = new Agent({
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    // The store's Keep-Alive hint may only shorten the time a connection is kept.
    keepAliveTimeout: keepIdleMs,
    keepAliveMaxTimeout: keepIdleMs,
    pipelining: 1,
    connect: { timeout: options.timeoutMs, ...options.tls },
  });
  let closed = false;

  function get(url: URL, headers: Record<string, string>, what: string): Promise<StoreResponse> {
    if (closed) return Promise.reject(new Error(`${what}: the storage client is closed`));
    try {
      for (const [name, value] of Object.entries(headers)) checkHeader(name, value);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    const request: Dispatcher.DispatchOptions = {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers,
    };
    return new Promise((resolve, reject) => {
      // The store may close a kept-alive connection just as the request goes
      // out on it: a GET that got no answer is sent again once.
      let retried = false;
      const send = () =>
        agent.dispatch(
          request,
          new ResponseHandler(what, resolve, (err) => {
            if (!retried && !closed && CUT_CODES.has(errorCode(err))) {
              retried = true;
              send();
            } else reject(storeError(err, what, 'no answer'));
          }),
        );
      send();
    });
  }

  return {
    get,
    connections() {
      let busy = 0;
      let idle = 0;
      for (const origin of Object.values(agent.stats)) {
        busy += origin.running + origin.pending;
        // A pool counts its open connections; a single client says whether it has one.
        idle += Math.max(0, Number(origin.connected) - origin.running);
      }
      return { busy, idle };
    },
    close() {
      closed = true;
      agent.destroy().catch(() => undefined);
    },
  };
}

/** Refuses what could add a header or a request; a TypeError as Node's http client throws. */
function checkHeader(name: string, value: string): void {
  try {
    http.validateHeaderName(name);
    http.validateHeaderValue(name, value);
  } catch (err) {
    // Node's own TypeError belongs to another realm under jest: this one is the caller's.
    throw new TypeError(`Invalid header ${JSON.stringify(name)} for a store request`, { cause: err });
  }
}

/** One response: resolves its head with a body that undici pauses and resumes as the body is read. */
class ResponseHandler implements Dispatcher.DispatchHandler {
  private body: Readable | undefined;
  /** Body bytes still due by the Content-Length, when there is one. */
  private remaining: number | undefined;
  private ended = false;

  constructor(
    private readonly what: string,
    private readonly resolve: (response: StoreResponse) => void,
    /** Called instead of `resolve` when the request fails before the response's head. */
    private readonly failBeforeAnswer: (err: Error) => void,
  ) {}

  onRequestStart(): void {}

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (status < 200) return;
    const joined = joinHeaders(headers);
    const length = joined['content-length'];
    this.remaining = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
    this.body = new Readable({
      read: () => controller.resume(),
      destroy: (err, callback) => {
        if (!this.ended && !controller.aborted) {
          // Every byte arrived, but undici paused before the response's end:
          // let it end, and keep the connection.
          if (this.remaining === 0) controller.resume();
          // The reader gave up before the end: the rest is still on the wire.
          else controller.abort(err ?? new Error(`${this.what}: the body was given up`));
        }
        callback(err);
      },
    });
    this.resolve({ status, headers: joined, body: this.body });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.remaining !== undefined) this.remaining -= chunk.length;
    if (!this.body!.destroyed && !this.body!.push(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.ended = true;
    if (!this.body!.destroyed) this.body!.push(null);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (!this.body) this.failBeforeAnswer(err);
    else if (!this.body.destroyed) this.body.destroy(storeError(err, this.what, this.remaining ?? 'unframed'));
  }
}

function joinHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  // No prototype: a header named `constructor` or `__proto__` is just a header.
  const joined = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) joined[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return joined;
}

function errorCode(err: unknown): string {
  return String((err as { code?: unknown }).code ?? '');
}

/**
 * undici's failures in the shapes errors.ts counts as the store being
 * unavailable: a stall is a TimeoutError, a connection cut under a request an
 * ECONNRESET that says how much of the body was missing.
 */
function storeError(err: Error, what: string, missing: number | 'no answer' | 'unframed'): Error {
  const code = errorCode(err);
  if (TIMEOUT_CODES.has(code))
    return Object.assign(new Error(`${what} timed out`, { cause: err }), { name: 'TimeoutError' });
  if (!CUT_CODES.has(code)) return err;
  const message =
    missing === 'no answer'
      ? `${what}: the store closed the connection without an answer`
      : missing === 'unframed'
        ? `${what}: the store closed the connection before the end of the body`
        : `${what}: the store closed the connection ${missing} bytes short of the body`;
  return Object.assign(new Error(message, { cause: err }), { code: 'ECONNRESET' });
}
