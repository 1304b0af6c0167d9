import net, { type AddressInfo } from 'node:net';
import express from 'express';
import { createHttpServer } from './http-server';

// The gateway's server builds requests and responses on the app's prototypes,
// so Express's per-request prototype change has nothing left to change (the
// figure is bench:poll's), and everything Express adds to them still works.

describe('createHttpServer', () => {
  const app = express();
  app.set('trust proxy', 1);
  app.use(express.json());
  app.get('/things/:id', (req, res) => {
    res
      .status(201)
      .set('X-Id', req.params.id)
      .json({ id: req.params.id, q: req.query.q, ip: req.ip, ua: req.get('user-agent') });
  });
  app.post('/echo', (req, res) => res.json(req.body));
  const server = createHttpServer(app);
  let base: string;
  const prototypes: boolean[] = [];
  server.prependListener('request', (req, res) => {
    prototypes.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response);
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('creates requests and responses with the app’s prototypes', async () => {
    prototypes.length = 0;
    await fetch(`${base}/things/a`);
    await fetch(`${base}/things/b`);
    expect(prototypes).toEqual([true, true]);
  });

  it('serves Express’s request and response API: params, query, headers, proxy address, status, JSON', async () => {
    const res = await fetch(`${base}/things/42?q=x`, {
      headers: { 'user-agent': 'weft-test', 'x-forwarded-for': '203.0.113.9' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-id')).toBe('42');
    expect(await res.json()).toEqual({ id: '42', q: 'x', ip: '203.0.113.9', ua: 'weft-test' });
  });

  it('reads request bodies', async () => {
    const res = await fetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ a: [1, 2] }),
    });
    expect(await res.json()).toEqual({ a: [1, 2] });
  });
});

describe('createHttpServer keep-alive', () => {
  const app = express();
  app.get('/', (_req, res) => res.send('ok'));

  async function listening(keepAliveTimeoutMs?: number) {
    const server = createHttpServer(app, keepAliveTimeoutMs === undefined ? {} : { keepAliveTimeoutMs });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  }

  /** Sends one keep-alive request on a raw socket; resolves with the socket once the answer has arrived. */
  async function requestOnce(port: number): Promise<net.Socket> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.on('data', (chunk: Buffer) => {
        if (chunk.toString().endsWith('ok')) resolve();
      });
      socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    });
    return socket;
  }

  it('closes an idle connection after the configured time', async () => {
    const server = await listening(1000);
    try {
      const socket = await requestOnce((server.address() as AddressInfo).port);
      const started = Date.now();
      await new Promise((resolve) => socket.once('close', resolve));
      // Node checks its timeouts on a timer of its own, so "after" rather than "at".
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('keeps idle connections longer than a load balancer does, and waits as long for the next headers', async () => {
    const server = await listening(65_000);
    try {
      expect(server.keepAliveTimeout).toBe(65_000);
      expect(server.headersTimeout).toBeGreaterThan(65_000);
      expect(server.headersTimeout).toBeLessThanOrEqual(server.requestTimeout);
    } finally {
      server.close();
    }
  });
});
