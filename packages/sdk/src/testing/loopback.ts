import type http from 'node:http';
import { startLoopbackServer } from '@weft/testing';

/** A request as the loopback server saw it. */
export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Loopback {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

/**
 * An HTTP server on 127.0.0.1 that answers with `handle`, recording each
 * request: it stands in for a gateway answer the real one cannot be made to
 * give on demand (a 429 now, a 503, a broken connection, an event stream).
 */
export async function startLoopback(
  handle: (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen) => unknown,
): Promise<Loopback> {
  const seen: Seen[] = [];
  const server = await startLoopbackServer((req, res, body) => {
    const entry = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: body.toString(),
      at: performance.now(),
    };
    seen.push(entry);
    return handle(req, res, entry);
  });
  return { url: server.origin, seen, close: () => server.close() };
}

export function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
