import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createHttpServer } from './http-server';

// Real sockets: a client that sends a request body at a chosen pace, and a
// server whose handler reads it (or holds it back) as the gateway's do.

const STALL_MS = 500;
const MIN_RATE = 1000;

const app = express();
const seen: { aborted: boolean; bytes: number }[] = [];
app.post('/read', (req, res) => {
  const record = { aborted: false, bytes: 0 };
  seen.push(record);
  req.on('data', (chunk: Buffer) => (record.bytes += chunk.length));
  req.on('end', () => res.json({ bytes: record.bytes }));
  req.on('aborted', () => (record.aborted = true));
});
// Holds the body back for `hold` ms (an upload waiting for memory) before reading it.
app.post('/later', (req, res) => {
  setTimeout(() => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => res.json({ bytes }));
  }, Number(req.query.hold));
});
const server = createHttpServer(app, {
  bodyPace: { stallMs: STALL_MS, minBytesPerSecond: MIN_RATE, checkEveryMs: 25 },
});
let port: number;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
});

/**
 * POSTs `total` bytes, `chunk` at a time every `everyMs` (the first at once);
 * `stopAfter` bytes, if given, are all it sends. Resolves with the answer.
 */
function paced(path: string, total: number, chunk: number, everyMs: number, stopAfter = total) {
  return new Promise<{ status: number; body: unknown; sent: number }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'Content-Length': total } });
    let sent = 0;
    const send = () => {
      const n = Math.min(chunk, stopAfter - sent);
      if (n > 0) {
        req.write(Buffer.alloc(n, 120));
        sent += n;
      }
      if (sent >= total) {
        clearInterval(timer);
        req.end();
      } else if (sent >= stopAfter) clearInterval(timer);
    };
    const timer = setInterval(send, everyMs);
    send();
    req.on('response', (res) => {
      clearInterval(timer);
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()), sent }),
      );
    });
    req.on('error', (err) => {
      clearInterval(timer);
      reject(err);
    });
  });
}

describe('watchBodyPace', () => {
  test("turns Node's requestTimeout off: it ended any body still arriving after 300 s, however steadily", () => {
    expect(server.requestTimeout).toBe(0);
  });

  test('a body that stops coming while it is read is answered 408, and its handler sees the request aborted', async () => {
    seen.length = 0;
    const res = await paced('/read', 10_000, 100, 10, 500);
    expect(res.status).toBe(408);
    expect(res.body).toEqual({ detail: 'Request body timed out: no byte for 0.5 s' });
    expect(seen).toEqual([{ aborted: true, bytes: 500 }]);
  });

  test('a body trickled below the minimum average is given up; one that keeps above it, for longer, is not', async () => {
    // 100 bytes per second, a tenth of the minimum: never a pause as long as the stall limit.
    const slow = await paced('/read', 10_000, 10, 100);
    expect(slow.status).toBe(408);
    expect(slow.body).toEqual({ detail: `Request body timed out: slower than ${MIN_RATE} bytes per second` });
    // 2000 bytes per second for about 1.5 s, three times the stall limit.
    const steady = await paced('/read', 3000, 200, 100);
    expect(steady).toMatchObject({ status: 200, body: { bytes: 3000 } });
  });

  test('time the server holds a body back does not count against the client', async () => {
    // Sent at once, then left unread for three times the stall limit.
    const res = await paced(`/later?hold=${3 * STALL_MS}`, 5000, 5000, 10);
    expect(res).toMatchObject({ status: 200, body: { bytes: 5000 } });
  });
});
