import { WeftError } from './errors';

// A request sent with XMLHttpRequest, answered as a fetch Response: fetch cannot
// report how much of a request body has been sent, and an upload's progress is
// what a user watches. Its failures look like fetch's (a TypeError for no
// answer, the signal's reason for an abort), so the retry policy reads them alike.

/** The part of XMLHttpRequest used here; the SDK compiles without the DOM library. */
interface XhrLike {
  readonly status: number;
  readonly responseText: string;
  readonly upload: {
    addEventListener(type: 'progress', listener: (event: { loaded: number; total: number }) => void): void;
  };
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  getAllResponseHeaders(): string;
  addEventListener(type: 'load' | 'error' | 'abort' | 'timeout', listener: () => void): void;
  send(body: FormData): void;
  abort(): void;
}

export interface XhrRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: FormData;
  signal?: AbortSignal;
  /** Bytes of the request body sent so far, of `total` (the whole multipart body). */
  onProgress?: (sent: number, total: number) => void;
}

/** Statuses whose Response may carry no body (the constructor throws otherwise). */
const NULL_BODY = new Set([204, 205, 304]);

export function sendXhr(request: XhrRequest): Promise<Response> {
  const Xhr = (globalThis as { XMLHttpRequest?: new () => XhrLike }).XMLHttpRequest;
  if (!Xhr) {
    return Promise.reject(new WeftError('This upload needs XMLHttpRequest: use WeftClient outside a browser'));
  }
  return new Promise((resolve, reject) => {
    const { signal } = request;
    if (signal?.aborted) return reject(signal.reason);
    const xhr = new Xhr();
    const onAbort = () => xhr.abort();
    const settle = (outcome: () => void) => () => {
      signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    xhr.addEventListener(
      'load',
      settle(() => {
        // Outside 200-599 Response cannot be built; no browser answers so, but a stand-in might.
        if (xhr.status < 200 || xhr.status > 599) reject(new TypeError(`No usable answer (status ${xhr.status})`));
        else resolve(toResponse(xhr));
      }),
    );
    xhr.addEventListener(
      'error',
      settle(() => reject(new TypeError('Network error'))),
    );
    xhr.addEventListener(
      'timeout',
      settle(() => reject(new TypeError('Network timeout'))),
    );
    xhr.addEventListener(
      'abort',
      settle(() => reject(signal?.reason ?? new DOMException('The upload was aborted', 'AbortError'))),
    );
    xhr.open(request.method, request.url);
    for (const [name, value] of Object.entries(request.headers)) xhr.setRequestHeader(name, value);
    // Registered before send(): a browser reports upload progress only to listeners it had then.
    if (request.onProgress) {
      const onProgress = request.onProgress;
      xhr.upload.addEventListener('progress', (event) => onProgress(event.loaded, event.total));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    xhr.send(request.body);
  });
}

function toResponse(xhr: XhrLike): Response {
  const headers = new Headers();
  for (const line of xhr.getAllResponseHeaders().split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return new Response(NULL_BODY.has(xhr.status) ? null : xhr.responseText, { status: xhr.status, headers });
}
