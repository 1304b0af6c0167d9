import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A request handler of a double: the request, its response, and the whole body read. */
export type DoubleHandler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => unknown;

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Stops listening and cuts the connections still open (a stalled answer never ends on its own). */
  close(): Promise<void>;
}

/**
 * The HTTP server under every provider double: on a free port of `host` (a loopback address), each
 * request's body read whole before `handle` sees it. What `handle` throws or
 * rejects becomes a bare 500, so a double's own bug shows in the test.
 */
export async function startLoopbackServer(handle: DoubleHandler, host = '127.0.0.1'): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      Promise.resolve()
        .then(() => handle(req, res, Buffer.concat(chunks)))
        .catch((err: unknown) => {
          if (res.headersSent) return void res.destroy();
          res.writeHead(500, { 'content-type': 'text/plain' }).end(`double error: ${String(err)}`);
        });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    origin: `http://${host}:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
