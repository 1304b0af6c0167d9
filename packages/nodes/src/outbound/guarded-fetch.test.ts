import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAllowList } from './address-policy';
import { guardedFetch, refusalOf } from './guarded-fetch';

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/to-metadata') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

test('loopback is refused unless allowed, by address or by name', async () => {
  const err = await guardedFetch(parseAllowList([]))(`${base}/x`).catch((e: unknown) => e);
  expect(refusalOf(err)?.message).toBe('127.0.0.1 is a loopback address, which nodes may not reach');
  const port = (server.address() as AddressInfo).port;
  const byName = await guardedFetch(parseAllowList([]))(`http://localhost:${port}/x`).catch((e: unknown) => e);
  expect(refusalOf(byName)?.message).toMatch(/localhost resolves to .*loopback/);

  expect(await (await guardedFetch(parseAllowList(['127.0.0.1']))(`${base}/x`)).text()).toBe('hello');
  expect(await (await guardedFetch(parseAllowList(['localhost']))(`http://localhost:${port}/x`)).text()).toBe('hello');
});

test('a redirect to a metadata address is refused even when the first hop is allowed', async () => {
  const err = await guardedFetch(parseAllowList(['127.0.0.1']))(`${base}/to-metadata`).catch((e: unknown) => e);
  expect(refusalOf(err)?.message).toMatch(/169\.254\.169\.254 is a (linkLocal|cloud metadata) address/);
});
