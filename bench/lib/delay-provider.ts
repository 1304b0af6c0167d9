import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in provider for `generic_provider` nodes: answers POST /delay?ms=N
 * with a text result after N ms, and counts the requests being answered.
 * The worker reaches it on loopback (OUTBOUND_ALLOWED_HOSTS=127.0.0.1).
 */
export async function startDelayProvider() {
  let active = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const ms = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('ms') ?? 10);
      active++;
      const timer = setTimeout(
        () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"type":"text","value":"ok"}'),
        ms,
      );
      res.on('close', () => {
        clearTimeout(timer);
        active--;
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (ms: number) => `http://127.0.0.1:${port}/delay?ms=${ms}`,
    active: () => active,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
