import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { waitFor } from '@weft/testing';
import { isStorageUnavailable } from './errors';
import { createObjectReader, type ObjectReader } from './object-reader';
import { openObject } from './objects';
import { createStorage } from './s3-storage';

// The object reader's handling of HTTP/1.1 on the wire, against real servers
// on loopback: plain Node http servers for ordinary answers, and raw TCP
// servers for what a store may do that Node's server never does (close a
// kept-alive connection as a request arrives, cut a body short, send bytes
// past it). Reads from a real S3 server are in storage.int.test.ts.

const BODY = Buffer.from('0123456789'.repeat(20_000));

async function listen(server: net.Server): Promise<URL> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return new URL(`http://127.0.0.1:${port}/bucket/key?X-Amz-Signature=abc`);
}

/** undici takes a kept-alive connection for another request only a turn of the event loop after its response ended. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Writes the parts an event-loop turn apart, so that each arrives on its own.
 * It cannot reject: socket.write reports a failure through the socket, not by throwing.
 */
async function writeSpaced(socket: net.Socket, parts: Buffer[]): Promise<void> {
  for (const part of parts) {
    socket.write(part);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const servers: net.Server[] = [];
const readers: ObjectReader[] = [];

function track<S extends net.Server>(server: S): S {
  servers.push(server);
  return server;
}

function reader(options: Partial<Parameters<typeof createObjectReader>[0]> = {}): ObjectReader {
  const created = createObjectReader({ timeoutMs: 5_000, ...options });
  readers.push(created);
  return created;
}

/** A Node http server answering BODY (or the requested range); counts the connections it accepted. */
function bodyServer(): { server: http.Server; connections: () => number; requests: http.IncomingMessage[] } {
  let connections = 0;
  const requests: http.IncomingMessage[] = [];
  const server = track(
    http.createServer((req, res) => {
      requests.push(req);
      const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
      if (range) {
        const [start, end] = [Number(range[1]), Number(range[2])];
        res.writeHead(206, {
          'Content-Range': `bytes ${start}-${end}/${BODY.length}`,
          'Content-Length': end - start + 1,
          ETag: '"e1"',
        });
        res.end(BODY.subarray(start, end + 1));
        return;
      }
      res.writeHead(200, { 'Content-Length': BODY.length, ETag: '"e1"' });
      res.end(BODY);
    }),
  );
  server.on('connection', () => connections++);
  return { server, connections: () => connections, requests };
}

afterEach(async () => {
  for (const r of readers.splice(0)) r.close();
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          (s as http.Server).closeAllConnections?.();
          s.close(() => resolve());
        }),
    ),
  );
});

test('reads a whole body and a range, sending the Host and headers given, over one kept-alive connection', async () => {
  const { server, connections, requests } = bodyServer();
  const url = await listen(server);
  const r = reader();

  const whole = await r.get(url, {}, 'read');
  expect(whole!.status).toBe(200);
  expect(whole!.headers.etag).toBe('"e1"');
  expect((await readAll(whole!.body)).equals(BODY)).toBe(true);
  await nextTurn();

  const part = await r.get(url, { Range: 'bytes=10-19' }, 'read');
  expect(part!.status).toBe(206);
  expect(part!.headers['content-range']).toBe(`bytes 10-19/${BODY.length}`);
  expect((await readAll(part!.body)).toString()).toBe('0123456789');

  expect(connections()).toBe(1);
  expect(requests[0]!.url).toBe('/bucket/key?X-Amz-Signature=abc');
  expect(requests[0]!.headers.host).toBe(url.host);
  expect(requests[1]!.headers.range).toBe('bytes=10-19');
  expect(r.connections()).toEqual({ busy: 0, idle: 1 });
});

test('a connection the store closes as the next request arrives is replaced, and the read succeeds', async () => {
  let connections = 0;
  const server = track(
    net.createServer((socket) => {
      connections++;
      let requests = 0;
      socket.on('data', () => {
        requests++;
        // The first connection answers once, then hangs up on the next request.
        if (connections === 1 && requests === 2) socket.destroy();
        else socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello`);
      });
    }),
  );
  const url = await listen(server);
  const r = reader();
  expect((await readAll((await r.get(url, {}, 'read'))!.body)).toString()).toBe('hello');
  await nextTurn();
  expect((await readAll((await r.get(url, {}, 'read'))!.body)).toString()).toBe('hello');
  expect(connections).toBe(2);
});

test('a connection the store closed while idle leaves the pool', async () => {
  const { server, connections } = bodyServer();
  // The store closes the connection 50 ms after its answer without announcing
  // it (S3 sends no Keep-Alive header); a connection whose store announces a
  // timeout that short is not kept at all.
  server.keepAliveTimeout = 0;
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) =>
    res.on('finish', () => setTimeout(() => req.socket.end(), 50)),
  );
  const url = await listen(server);
  const r = reader();
  await readAll((await r.get(url, {}, 'read'))!.body);
  expect(r.connections()).toEqual({ busy: 0, idle: 1 });
  await waitFor('the closed connection to leave the pool', () => r.connections().idle === 0);
  expect(r.connections()).toEqual({ busy: 0, idle: 0 });
  expect((await readAll((await r.get(url, {}, 'read'))!.body)).equals(BODY)).toBe(true);
  expect(connections()).toBe(2);
});

test('an idle connection is closed after keepIdleMs, before the store would close it', async () => {
  const { server } = bodyServer();
  let closedByUs = false;
  server.on('connection', (socket) => socket.on('end', () => (closedByUs = true)));
  const r = reader({ keepIdleMs: 100 });
  await readAll((await r.get(await listen(server), {}, 'read'))!.body);
  expect(r.connections().idle).toBe(1);
  // Node's server would close it after its own keep-alive timeout, 5 s: this waits less.
  await waitFor('the idle connection closed by us', () => closedByUs, { timeoutMs: 4_000 });
  expect(r.connections()).toEqual({ busy: 0, idle: 0 });
});

test('a byte from the store on an idle connection closes it, and the next read takes a new one', async () => {
  let connections = 0;
  const sockets: net.Socket[] = [];
  const server = track(
    net.createServer((socket) => {
      connections++;
      sockets.push(socket);
      socket.on('data', () => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello'));
    }),
  );
  const url = await listen(server);
  const r = reader();
  expect((await readAll((await r.get(url, {}, 'read'))!.body)).toString()).toBe('hello');
  expect(r.connections()).toEqual({ busy: 0, idle: 1 });
  // Nothing may come while no request is out: a late byte would be read as the next answer's.
  sockets[0]!.write('x');
  await waitFor('the idle connection to close', () => r.connections().idle === 0, { timeoutMs: 2_000, intervalMs: 10 });
  expect(r.connections()).toEqual({ busy: 0, idle: 0 });
  expect((await readAll((await r.get(url, {}, 'read'))!.body)).toString()).toBe('hello');
  expect(connections).toBe(2);
});

test('each chunk of a body is its own: chunks held by a slow reader are not overwritten by later reads', async () => {
  const body = randomBytes(4 * 1024 * 1024);
  const server = track(
    http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Length': body.length });
      res.end(body);
    }),
  );
  const r = reader();
  const answer = await r.get(await listen(server), {}, 'read');
  const chunks: Buffer[] = [];
  for await (const chunk of answer!.body) {
    chunks.push(chunk as Buffer);
    // Let the socket fill further buffers while the chunks read so far are kept as they are.
    if (chunks.length % 8 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(chunks.length).toBeGreaterThan(8);
  expect(Buffer.concat(chunks).equals(body)).toBe(true);
});

test('a body that arrives in small bursts is read whole, its chunks holding little more memory than their bytes', async () => {
  const body = randomBytes(256 * 1024);
  const server = track(
    net.createServer((socket) => {
      socket.setNoDelay(true);
      socket.once('data', () => {
        socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`);
        // 1 KiB at a time, as a store far away may deliver it.
        const parts: Buffer[] = [];
        for (let at = 0; at < body.length; at += 1024) parts.push(body.subarray(at, at + 1024));
        void writeSpaced(socket, parts);
      });
    }),
  );
  const r = reader();
  const chunks: Buffer[] = [];
  for await (const chunk of (await r.get(await listen(server), {}, 'read'))!.body) chunks.push(chunk as Buffer);
  expect(Buffer.concat(chunks).equals(body)).toBe(true);
  expect(chunks.length).toBeGreaterThan(16);
  // Without copying, each small read would hold a whole 64 KiB read buffer.
  const held = new Set(chunks.map((c) => c.buffer));
  const heldBytes = [...held].reduce((sum, b) => sum + b.byteLength, 0);
  expect(heldBytes).toBeLessThanOrEqual(4 * body.length);
});

test('a head that arrives a byte at a time is read, whatever its header names', async () => {
  const answer = Buffer.from(
    'HTTP/1.1 200 OK\r\nContent-Length: 3\r\nX-Multi: a\r\nX-Multi: b\r\nConstructor: c\r\n__proto__: p\r\n\r\nabc',
  );
  const server = track(
    net.createServer((socket) => {
      socket.once('data', () => {
        const bytes = [...answer].map((byte) => Buffer.from([byte]));
        void writeSpaced(socket, bytes);
      });
    }),
  );
  const res = await reader().get(await listen(server), {}, 'read');
  expect(res!.headers['x-multi']).toBe('a, b');
  expect(res!.headers.constructor).toBe('c');
  expect(res!.headers['__proto__']).toBe('p');
  expect((await readAll(res!.body)).toString()).toBe('abc');
});

test('a body cut short fails with an error that counts as the store being unavailable', async () => {
  const server = track(
    net.createServer((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n');
        socket.end(Buffer.alloc(1000));
      });
    }),
  );
  const res = await reader().get(await listen(server), {}, 'read');
  const err = await readAll(res!.body).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(Error);
  expect((err as Error).message).toMatch(/99000 bytes short/);
  expect(isStorageUnavailable(err)).toBe(true);
});

test('bytes past the Content-Length are not delivered, and that connection is not used again', async () => {
  const server = track(
    net.createServer((socket) => {
      socket.once('data', () => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcEXTRA'));
    }),
  );
  const r = reader();
  const res = await r.get(await listen(server), {}, 'read');
  expect((await readAll(res!.body)).toString()).toBe('abc');
  expect(r.connections()).toEqual({ busy: 0, idle: 0 });
});

test('a body destroyed before its end closes its connection', async () => {
  const { server } = bodyServer();
  const r = reader();
  const res = await r.get(await listen(server), {}, 'read');
  res!.body.destroy();
  await waitFor('the connection to close', () => r.connections().idle === 0 && r.connections().busy === 0);
});

test('a body given up after all its bytes arrived, before it was read, releases its connection for reuse', async () => {
  // More than the body's buffer holds, in one write: every byte is in before anyone reads.
  const small = BODY.subarray(0, 20_000);
  const server = track(
    http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Length': small.length });
      res.end(small);
    }),
  );
  const r = reader();
  const res = await r.get(await listen(server), {}, 'read');
  await new Promise((resolve) => setTimeout(resolve, 50));
  res.body.destroy();
  await waitFor('the connection to be idle', () => r.connections().busy === 0);
  expect(r.connections()).toEqual({ busy: 0, idle: 1 });
});

test('a store that stops sending fails the read with a TimeoutError', async () => {
  const server = track(
    net.createServer((socket) => {
      socket.once('data', () => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'));
    }),
  );
  const res = await reader({ timeoutMs: 200 }).get(await listen(server), {}, 'read');
  const err = await readAll(res!.body).catch((e: unknown) => e);
  expect((err as Error).name).toBe('TimeoutError');
  expect(isStorageUnavailable(err)).toBe(true);
});

test('a reader that stops reading for longer than the timeout (a slow client) still gets the whole body', async () => {
  const { server } = bodyServer();
  const res = await reader({ timeoutMs: 200 }).get(await listen(server), {}, 'read');
  // Not read for three timeouts: the body fills and its socket is paused.
  await new Promise((resolve) => setTimeout(resolve, 600));
  expect((await readAll(res!.body)).equals(BODY)).toBe(true);
});

test('a store that stops sending after its reader paused and resumed still times out', async () => {
  const server = track(
    net.createServer((socket) => {
      socket.once('data', () => {
        socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${4 * BODY.length}\r\n\r\n`);
        socket.write(BODY);
      });
    }),
  );
  const res = await reader({ timeoutMs: 200 }).get(await listen(server), {}, 'read');
  await new Promise((resolve) => setTimeout(resolve, 600));
  const err = await readAll(res!.body).catch((e: unknown) => e);
  expect((err as Error).name).toBe('TimeoutError');
});

test('a store that cannot be reached fails as unavailable', async () => {
  const server = track(net.createServer());
  const url = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  servers.splice(servers.indexOf(server), 1);
  const err = await reader()
    .get(url, {}, 'read')
    .catch((e: unknown) => e);
  expect((err as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  expect(isStorageUnavailable(err)).toBe(true);
});

test('a header value with a line break is refused before anything is sent', async () => {
  const { server, connections } = bodyServer();
  const url = await listen(server);
  await expect(reader().get(url, { Range: 'bytes=0-1\r\nX-Injected: 1' }, 'read')).rejects.toThrow(TypeError);
  expect(connections()).toBe(0);
});

test('a chunked answer is read whole, by the reader and by openObject', async () => {
  const server = track(
    http.createServer((_req, res) => {
      res.writeHead(200, { 'Transfer-Encoding': 'chunked', ETag: '"c"' });
      res.write(BODY.subarray(0, 1000));
      res.end(BODY.subarray(1000));
    }),
  );
  const url = await listen(server);
  expect((await readAll((await reader().get(url, {}, 'read')).body)).equals(BODY)).toBe(true);

  const storage = createStorage({
    endpoint: url.origin,
    region: 'us-east-1',
    bucket: 'bucket',
    accessKeyId: 'id',
    secretAccessKey: 'secret',
    forcePathStyle: true,
  });
  try {
    const object = await openObject(storage, 'key');
    expect(object.eTag).toBe('"c"');
    expect((await readAll(object.body)).equals(BODY)).toBe(true);
  } finally {
    storage.close();
  }
});

test('reads over TLS, checking the certificate, and keeps the connection', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'weft-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost',
        '-days',
        '1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const cert = readFileSync(path.join(dir, 'cert.pem'));
    let connections = 0;
    const server = track(
      https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert }, (_req, res) => {
        res.writeHead(200, { 'Content-Length': BODY.length });
        res.end(BODY);
      }),
    );
    server.on('secureConnection', () => connections++);
    const { port } = await listen(server);
    const url = new URL(`https://localhost:${port}/bucket/key`);

    const trusting = reader({ tls: { ca: cert } });
    expect((await readAll((await trusting.get(url, {}, 'read'))!.body)).equals(BODY)).toBe(true);
    await nextTurn();
    expect((await readAll((await trusting.get(url, {}, 'read'))!.body)).equals(BODY)).toBe(true);
    expect(connections).toBe(1);

    // Without the CA the self-signed certificate is refused.
    const err = await reader()
      .get(url, {}, 'read')
      .catch((e: unknown) => e);
    expect((err as NodeJS.ErrnoException).code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
