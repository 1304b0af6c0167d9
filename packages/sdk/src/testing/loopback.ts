import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
 * An HTTP server on 127.0.0.1 that answers with `handle`: it stands in for a
 * gateway answer the real one cannot be made to give on demand (a 429 now, a
 * 503, a broken connection, an event stream route not merged yet).
 */
export async function startLoopback(
  handle: (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen) => void | Promise<void>,
): Promise<Loopback> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        at: performance.now(),
      };
      seen.push(entry);
      void Promise.resolve(handle(req, res, entry)).catch((err: Error) => {
        res.statusCode = 500;
        res.end(JSON.stringify({ detail: err.message }));
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
