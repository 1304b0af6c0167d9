import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseExposition } from '@weft/metrics';
import { waitFor } from '@weft/testing';
import pino from 'pino';
import request from 'supertest';
import { createApp } from '../app';
import { startTestGateway, type TestGateway } from '../testing/test-gateway';

// The web console at /console/, served by the real gateway from a build folder
// shaped like Vite's output (index.html naming hashed files under assets/).

const INDEX_HTML =
  '<!doctype html>\n<html><head><script type="module" crossorigin src="/console/assets/app-abc123.js"></script>' +
  '</head><body><div id="root"></div></body></html>\n';
const APP_JS = 'document.getElementById("root").textContent = "Weft console";\n';
const CDN = 'https://cdn.example.com';

let gw: TestGateway;
let storageOrigin: string;
const dirs: string[] = [];

/** In a folder whose name starts with a dot, which is no reason to hide the files in it. */
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), '.weft-console-'));
  dirs.push(dir);
  return dir;
}

beforeAll(async () => {
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), INDEX_HTML);
  fs.writeFileSync(path.join(dir, 'assets', 'app-abc123.js'), APP_JS);
  gw = await startTestGateway({ CONSOLE_DIR: dir, ASSET_PUBLIC_BASE_URL: `${CDN}/weft-assets` });
  storageOrigin = new URL(gw.config.S3_ENDPOINT!).origin;
});
afterAll(async () => {
  await gw?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const get = (url: string) => request(gw.server).get(url);

function expectSecurityHeaders(res: request.Response): void {
  const media = `${CDN} ${storageOrigin}`;
  expect(res.headers['content-security-policy']).toBe(
    "default-src 'self'; script-src 'self'; style-src 'self'; " +
      `img-src 'self' data: blob: ${media}; media-src 'self' blob: ${media}; ` +
      "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; " +
      "frame-ancestors 'none'; form-action 'self'",
  );
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
}

test('/console/ is index.html, revalidated on every use, under a CSP allowing no inline script', async () => {
  const res = await get('/console/');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.text).toBe(INDEX_HTML);
  expect(res.headers['cache-control']).toBe('no-cache');
  expectSecurityHeaders(res);

  const again = await get('/console/').set('If-Modified-Since', res.headers['last-modified']!);
  expect(again.status).toBe(304);
});

test('hashed assets are cached for a year as immutable', async () => {
  const res = await get('/console/assets/app-abc123.js');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
  expect(res.text).toBe(APP_JS);
  expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  expectSecurityHeaders(res);
});

test("the app's own routes answer index.html, so a reload or a shared link opens the page", async () => {
  for (const url of ['/console/runs/123', '/console/reviews', '/console/runs/123?tab=events', '/console/index.html']) {
    const res = await get(url);
    expect({ url, status: res.status, body: res.text }).toEqual({ url, status: 200, body: INDEX_HTML });
    expect(res.headers['cache-control']).toBe('no-cache');
    expectSecurityHeaders(res);
  }
});

test('a missing asset is a 404, never index.html', async () => {
  for (const url of ['/console/assets/app-gone99.js', '/console/assets/', '/console/assets/nested/x.css']) {
    const res = await get(url);
    expect({ url, status: res.status, body: res.body }).toEqual({ url, status: 404, body: { detail: 'Not Found' } });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBeUndefined();
    expectSecurityHeaders(res);
  }
});

test('/console redirects to /console/ (308), keeping the query', async () => {
  const res = await get('/console');
  expect(res.status).toBe(308);
  expect(res.headers['location']).toBe('/console/');
  expectSecurityHeaders(res);
  expect((await get('/console?from=email')).headers['location']).toBe('/console/?from=email');
  expect((await request(gw.server).head('/console')).status).toBe(308);
});

test('HEAD answers like GET without a body', async () => {
  for (const [url, body, cacheControl] of [
    ['/console/', INDEX_HTML, 'no-cache'],
    ['/console/runs/123', INDEX_HTML, 'no-cache'],
    ['/console/assets/app-abc123.js', APP_JS, 'public, max-age=31536000, immutable'],
  ] as const) {
    const res = await request(gw.server).head(url);
    expect({
      url,
      status: res.status,
      length: res.headers['content-length'],
      cacheControl: res.headers['cache-control'],
    }).toEqual({ url, status: 200, length: String(Buffer.byteLength(body)), cacheControl });
    expectSecurityHeaders(res);
  }
  const missing = await request(gw.server).head('/console/assets/app-gone99.js');
  expect(missing.status).toBe(404);
});

test('the console is read-only: other methods answer 405 naming GET and HEAD', async () => {
  const res = await request(gw.server).post('/console/runs').send({});
  expect(res.status).toBe(405);
  expect(res.headers['allow']).toBe('GET, HEAD');
  expect(res.body).toEqual({ detail: 'Method POST not allowed on this path; allowed: GET, HEAD' });
  expectSecurityHeaders(res);
});

test('the console is not part of the API: no OpenAPI path, no rate limit, one metrics route', async () => {
  const doc = await get('/openapi.json');
  expect(Object.keys(doc.body.paths as object).filter((p) => p.startsWith('/console'))).toEqual([]);

  // Unknown API paths are counted by the rate limiter; console files and misses are not.
  expect((await get('/no-such-path')).headers['x-ratelimit-limit']).toBeDefined();
  for (const url of ['/console/', '/console/runs/1', '/console/assets/app-abc123.js', '/console/assets/gone.js']) {
    expect({ url, limit: (await get(url)).headers['x-ratelimit-limit'] }).toEqual({ url, limit: undefined });
  }

  await waitFor('console requests to be measured', async () => {
    const m = parseExposition((await get('/metrics')).text);
    const measured = m.value('weft_http_request_duration_seconds_count', {
      method: 'GET',
      route: '/console',
      status: '200',
    });
    return measured >= 3;
  });
  const m = parseExposition((await get('/metrics')).text);
  expect(m.samples.some((s) => s.labels.route?.startsWith('/console/'))).toBe(false);
});

describe('a deployment built without the console', () => {
  let bare: TestGateway;
  beforeAll(async () => {
    bare = await gw.startSibling({ CONSOLE_DIR: tempDir(), ASSET_PUBLIC_BASE_URL: `${CDN}/weft-assets` });
  });
  afterAll(() => bare?.close());

  test('starts, and answers /console/ with a 404 saying how to build it', async () => {
    expect((await request(bare.server).get('/healthz')).status).toBe(200);
    for (const url of ['/console/', '/console/runs/123']) {
      const res = await request(bare.server).get(url);
      expect({ url, status: res.status, body: res.body }).toEqual({
        url,
        status: 404,
        body: {
          detail: 'The console is not built in this deployment: run `npm run build`, which writes it to dist/console',
        },
      });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBeUndefined();
      expectSecurityHeaders(res);
    }
  });

  test('says so once in its log, at start-up', async () => {
    const lines: Array<{ level: number; msg: string; dir?: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const app = createApp({ ...bare.deps, logger });
    for (let i = 0; i < 3; i++) expect((await request(app).get('/console/')).status).toBe(404);
    const notBuilt = lines.filter((line) => /console is not built/.test(line.msg));
    expect(notBuilt).toEqual([expect.objectContaining({ level: 40, dir: bare.config.CONSOLE_DIR })]);
  });
});
