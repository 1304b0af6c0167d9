import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAllowList } from './address-policy';
import { guardedRequest, RefusedDestinationError } from './guarded-request';

let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/redirect') return res.writeHead(302, { location: 'http://10.0.0.1/' }).end();
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const call = (url: string, allow: string[]) =>
  guardedRequest({ url, method: 'GET', allow: parseAllowList(allow), signal: AbortSignal.timeout(2000) });

test('refuses loopback unless allow-listed, by address and by resolved name', async () => {
  await expect(call(`http://127.0.0.1:${port}/`, [])).rejects.toThrow(RefusedDestinationError);
  await expect(call(`http://localhost:${port}/`, [])).rejects.toThrow(/resolves to/);
  expect((await call(`http://127.0.0.1:${port}/`, ['127.0.0.1'])).status).toBe(200);
  expect((await call(`http://localhost:${port}/`, ['localhost'])).status).toBe(200);
});

test.each(['[::127.0.0.1]', '[::7f00:1]', '[::ffff:7f00:1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::]'])(
  'refuses %s, an IPv6 form of 127.0.0.1, unless 127.0.0.1 is allow-listed',
  async (host) => {
    await expect(call(`http://${host}:${port}/`, [])).rejects.toThrow(/loopback/);
    // Allowed, the request is made: whether this host routes the form to 127.0.0.1 is the kernel's business.
    const allowed = await call(`http://${host}:${port}/`, ['127.0.0.1']).catch((err: unknown) => err);
    expect(allowed).not.toBeInstanceOf(RefusedDestinationError);
  },
);

test('checks every redirect hop', async () => {
  await expect(call(`http://127.0.0.1:${port}/redirect`, ['127.0.0.1'])).rejects.toThrow(/10\.0\.0\.1/);
});

test('refuses schemes other than http(s)', async () => {
  await expect(call('file:///etc/passwd', [])).rejects.toThrow(RefusedDestinationError);
});
