import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tracePool, traceToSvg } from '@weft/media';
import { waitFor } from '@weft/testing';
import request from 'supertest';
import { MP4_HEADER, PDF_BYTES, pngBytes, upload } from '../../testing/asset-fixtures';
import { startTestGateway, type TestGateway } from '../../testing/test-gateway';

let gw: TestGateway;
let mine: { id: string; apiKey: string };
let other: { id: string; apiKey: string };
let png: Buffer;
let pngId: string;

const download = (id: string, apiKey = mine.apiKey) =>
  request(gw.app)
    .get(`/assets/${id}/download`)
    .set('X-Api-Key', apiKey)
    .buffer(true)
    .parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });

beforeAll(async () => {
  gw = await startTestGateway();
  mine = await gw.createOrg('mine');
  other = await gw.createOrg('other');
  png = await pngBytes(200, 120);
  const res = await upload(gw.app, mine.apiKey, png, { partName: 'Résumé photo.png' });
  pngId = res.body.id;
});
afterAll(() => gw.close());

describe('GET /assets/{id}/download', () => {
  test('streams the file with its type, length and a safe attachment disposition', async () => {
    const res = await download(pngId);
    expect(res.status).toBe(200);
    expect(Buffer.compare(res.body as Buffer, png)).toBe(0);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['content-length']).toBe(String(png.length));
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="R_sum_ photo.png"; filename*=UTF-8''R%C3%A9sum%C3%A9%20photo.png`,
    );
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  test('marks the asset as downloaded', async () => {
    const { body } = await upload(gw.app, mine.apiKey, png);
    expect(body.downloaded).toBe(false);
    await download(body.id);
    // Set beside the stream, not before it.
    await waitFor('downloaded = true', async () => {
      const after = await request(gw.app).get(`/assets/${body.id}`).set('X-Api-Key', mine.apiKey);
      return after.body.downloaded === true;
    });
  });

  test.each([
    ['bytes=0-9', 0, 9],
    ['bytes=10-', 10, undefined],
    ['bytes=-16', -16, undefined],
    ['bytes=5-100000000', 5, undefined],
  ])('Range %s: 206 with that slice', async (range, start, end) => {
    const res = await download(pngId).set('Range', range);
    expect(res.status).toBe(206);
    const from = start < 0 ? png.length + start : start;
    const to = end ?? png.length - 1;
    expect(Buffer.compare(res.body as Buffer, png.subarray(from, to + 1))).toBe(0);
    expect(res.headers['content-range']).toBe(`bytes ${from}-${to}/${png.length}`);
    expect(res.headers['content-length']).toBe(String(to - from + 1));
  });

  test('a range past the end: 416 naming the size', async () => {
    const res = await download(pngId).set('Range', `bytes=${png.length}-`);
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${png.length}`);
  });

  test('several ranges or a malformed header: the whole file', async () => {
    for (const range of ['bytes=0-1,5-6', 'pages=1-2', 'bytes=9-3']) {
      const res = await download(pngId).set('Range', range);
      expect(res.status).toBe(200);
      expect((res.body as Buffer).length).toBe(png.length);
    }
  });

  test('If-Range: the range while the ETag matches, the whole file otherwise', async () => {
    const full = await download(pngId);
    const etag = full.headers.etag as string;
    expect(etag).toBeTruthy();
    expect((await download(pngId).set('Range', 'bytes=0-3').set('If-Range', etag)).status).toBe(206);
    const stale = await download(pngId).set('Range', 'bytes=0-3').set('If-Range', '"stale"');
    expect(stale.status).toBe(200);
    expect((stale.body as Buffer).length).toBe(png.length);
  });

  test('If-Range with a stale tag: the whole file even when the range lies past the end; with the current tag, 416', async () => {
    const etag = (await download(pngId)).headers.etag as string;
    const past = `bytes=${png.length + 10}-`;
    const stale = await download(pngId).set('Range', past).set('If-Range', '"stale"');
    expect(stale.status).toBe(200);
    expect(Buffer.compare(stale.body as Buffer, png)).toBe(0);
    const current = await download(pngId).set('Range', past).set('If-Range', etag);
    expect(current.status).toBe(416);
    expect(current.headers['content-range']).toBe(`bytes */${png.length}`);
  });

  test('HEAD: the headers a GET would give, no bytes, and the asset not marked downloaded', async () => {
    const { body } = await upload(gw.app, mine.apiKey, png);
    const head = () => request(gw.app).head(`/assets/${body.id}/download`).set('X-Api-Key', mine.apiKey);
    const whole = await head();
    expect(whole.status).toBe(200);
    expect(whole.headers['content-length']).toBe(String(png.length));
    expect(whole.headers['content-type']).toBe('image/png');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers.etag).toBeTruthy();
    const ranged = await head().set('Range', 'bytes=10-19');
    expect(ranged.status).toBe(206);
    expect(ranged.headers['content-range']).toBe(`bytes 10-19/${png.length}`);
    expect(ranged.headers['content-length']).toBe('10');
    expect((await head().set('Range', `bytes=${png.length}-`)).status).toBe(416);
    const svg = await request(gw.app).head(`/assets/${body.id}/download?svg=true`).set('X-Api-Key', mine.apiKey);
    expect(svg.status).toBe(200);
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    // Still false: nobody received the file.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = await request(gw.app).get(`/assets/${body.id}`).set('X-Api-Key', mine.apiKey);
    expect(after.body.downloaded).toBe(false);

    const row = await gw.deps.db.prisma.asset.findUniqueOrThrow({ where: { id: body.id } });
    await gw.deps.storage.client.send(new DeleteObjectCommand({ Bucket: gw.deps.storage.bucket, Key: row.storageKey }));
    expect((await head()).status).toBe(410);
  });

  test('a store that ignores the Range and sends the whole file: a 200 of the whole file, not a 206', async () => {
    // Between the gateway and the store, an HTTP proxy that drops the Range header.
    const store = new URL(gw.config.S3_ENDPOINT!);
    const proxy = http.createServer((req, res) => {
      const { range: _range, ...headers } = req.headers;
      const upstream = http.request(
        { host: store.hostname, port: store.port, method: req.method, path: req.url, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const sibling = await gw.startSibling({
      S3_ENDPOINT: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    });
    try {
      const res = await request(sibling.app)
        .get(`/assets/${pngId}/download`)
        .set('X-Api-Key', mine.apiKey)
        .set('Range', 'bytes=0-9')
        .buffer(true)
        .parse((r, cb) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => cb(null, Buffer.concat(chunks)));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-range']).toBeUndefined();
      expect(Buffer.compare(res.body as Buffer, png)).toBe(0);
    } finally {
      await sibling.close();
      proxy.closeAllConnections();
      proxy.close();
    }
  });

  test("another organization's private asset, or none: 404; public and shared ones download", async () => {
    const priv = await upload(gw.app, other.apiKey, png, { visibility: 'private' });
    const pub = await upload(gw.app, other.apiKey, png, { visibility: 'public' });
    const shared = await upload(gw.app, other.apiKey, png, { visibility: 'shared' });
    expect((await download(priv.body.id)).status).toBe(404);
    expect((await download(randomUUID())).status).toBe(404);
    expect((await download(pub.body.id)).status).toBe(200);
    expect((await download(shared.body.id)).status).toBe(200);
  });

  test('a file gone from storage: 410', async () => {
    const { body } = await upload(gw.app, mine.apiKey, png);
    const row = await gw.deps.db.prisma.asset.findUniqueOrThrow({ where: { id: body.id } });
    await gw.deps.storage.client.send(new DeleteObjectCommand({ Bucket: gw.deps.storage.bucket, Key: row.storageKey }));
    expect((await download(body.id)).status).toBe(410);
    const svg = await request(gw.app).get(`/assets/${body.id}/download?svg=true`).set('X-Api-Key', mine.apiKey);
    expect(svg.status).toBe(410);
    expect(svg.body).toEqual({ detail: 'The file is no longer available' });
  });

  test('SVG content is an attachment under a sandboxing Content-Security-Policy', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>');
    const { body } = await upload(gw.app, mine.apiKey, svg, { partName: 'x.svg' });
    const res = await download(body.id);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.headers['content-disposition']).toMatch(/^attachment;/);
    expect(res.headers['content-security-policy']).toContain('sandbox');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  });

  describe('while the bytes flow', () => {
    // Larger than the socket buffers between the store, the gateway and the
    // client, so that the store is still sending when the test intervenes.
    const BIG = Buffer.concat([MP4_HEADER, randomBytes(32 * 1024 * 1024)]);
    let bigId: string;
    beforeAll(async () => {
      const res = await upload(gw.app, mine.apiKey, BIG, { partName: 'big.mp4' });
      expect(res.status).toBe(200);
      bigId = res.body.id;
    });

    /** GET .../download on a listening server, stopped by `until` after each chunk; resolves once the response is over. */
    function rawDownload(
      server: http.Server,
      until: (received: number, req: http.ClientRequest, res: http.IncomingMessage) => void,
    ) {
      const { port } = server.address() as AddressInfo;
      return new Promise<{ status: number; declared: number; received: number; complete: boolean }>(
        (resolve, reject) => {
          const req = http.get(
            { host: '127.0.0.1', port, path: `/assets/${bigId}/download`, headers: { 'X-Api-Key': mine.apiKey } },
            (res) => {
              let received = 0;
              const done = () =>
                resolve({
                  status: res.statusCode ?? 0,
                  declared: Number(res.headers['content-length']),
                  received,
                  complete: res.complete,
                });
              res.on('data', (chunk: Buffer) => {
                received += chunk.length;
                until(received, req, res);
              });
              res.on('error', () => undefined);
              res.on('close', done);
            },
          );
          req.on('error', reject);
          req.setTimeout(10_000, () => reject(new Error('the response neither ended nor broke off')));
        },
      );
    }

    const busyStoreSockets = () => gw.deps.storage.reader.connections().busy;

    test('a client that hangs up mid-file releases the read from the store', async () => {
      let busyAtHangUp = -1;
      await rawDownload(gw.server, (received, req) => {
        if (received < 1024 * 1024 || busyAtHangUp >= 0) return;
        busyAtHangUp = busyStoreSockets();
        req.destroy();
      }).catch(() => undefined);
      expect(busyAtHangUp).toBe(1);
      // Not left paused on a keep-alive socket until the store's idle timeout.
      await waitFor('the store socket is released', async () => busyStoreSockets() === 0, {
        timeoutMs: 5_000,
      });
    });

    test('a client that stops reading is let go after ASSET_DOWNLOAD_STALL_MS, releasing the read from the store', async () => {
      const sibling = await gw.startSibling({ ASSET_DOWNLOAD_STALL_MS: '1000' });
      try {
        let stoppedAt = 0;
        const result = await rawDownload(sibling.server, (received, _req, res) => {
          if (received < 1024 * 1024 || stoppedAt) return;
          stoppedAt = Date.now();
          res.pause();
          // Reading again after the limit: what the buffers held, then the end the gateway put after it.
          setTimeout(() => res.resume(), 2500);
        });
        expect(result.status).toBe(200);
        expect(result.received).toBeLessThan(BIG.length);
        expect(result.complete).toBe(false);
        await waitFor(
          'the store socket is released',
          async () => sibling.deps.storage.reader.connections().busy === 0,
          {
            timeoutMs: 5_000,
          },
        );
      } finally {
        await sibling.close();
      }
    });

    test('the store failing mid-file aborts the response rather than ending it short', async () => {
      // Between the gateway and the store, a TCP relay that cuts the connection after 1 MiB of a download.
      const store = new URL(gw.config.S3_ENDPOINT!);
      const relay = net.createServer((client) => {
        const upstream = net.connect(Number(store.port), store.hostname);
        let fromStore = 0;
        client.pipe(upstream);
        upstream.on('data', (chunk: Buffer) => {
          fromStore += chunk.length;
          client.write(chunk);
          if (fromStore > 1024 * 1024) {
            client.destroy();
            upstream.destroy();
          }
        });
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
      });
      await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
      const sibling = await gw.startSibling({
        S3_ENDPOINT: `http://127.0.0.1:${(relay.address() as AddressInfo).port}`,
      });
      try {
        const result = await rawDownload(sibling.server, () => undefined);
        expect(result.status).toBe(200);
        expect(result.declared).toBe(BIG.length);
        expect(result.received).toBeLessThan(BIG.length);
        expect(result.complete).toBe(false);
        // The gateway carries on.
        expect((await download(pngId)).status).toBe(200);
      } finally {
        await sibling.close();
        relay.close();
      }
    });
  });

  describe('svg=true (experimental)', () => {
    test('traces a raster image into SVG', async () => {
      const res = await request(gw.app).get(`/assets/${pngId}/download?svg=true`).set('X-Api-Key', mine.apiKey);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('image/svg+xml');
      expect(res.headers['content-disposition']).toMatch(/filename="R_sum_ photo.png.svg"|photo\.svg/);
      expect(String(res.text ?? res.body)).toMatch(/^<svg[\s\S]*<path/);
    });

    test('answers 400 for anything but a raster image', async () => {
      const { body } = await upload(gw.app, mine.apiKey, PDF_BYTES, { partName: 'doc.pdf' });
      const res = await request(gw.app).get(`/assets/${body.id}/download?svg=true`).set('X-Api-Key', mine.apiKey);
      expect(res.status).toBe(400);
    });

    describe('while the tracer is taken', () => {
      // This process's tracer holds one trace at a time; a trace of the test's
      // own, whose image is withheld until `release`, keeps it taken.
      let release: () => void;
      let holding: Promise<string>;
      let images: string[];
      beforeEach(async () => {
        const withheld = new Promise<void>((resolve) => (release = resolve));
        holding = traceToSvg({ key: `held-${randomUUID()}`, read: () => withheld.then(() => png) }, { maxPixels: 1e8 });
        await waitFor('the tracer taken', () => tracePool.running === 1);
        // Distinct images, so that no two requests share one trace.
        images = [];
        for (let i = 0; i < 9; i++) {
          const { body } = await upload(gw.app, mine.apiKey, await pngBytes(40 + i, 30), { partName: `p${i}.png` });
          images.push(body.id as string);
        }
      });
      afterEach(async () => {
        release();
        await holding;
      });

      const traceOf = (id: string) =>
        request(gw.app).get(`/assets/${id}/download?svg=true`).set('X-Api-Key', mine.apiKey);

      test('requests wait their turn; one too many gets 503 with Retry-After, and those waiting are served', async () => {
        const waiting = images.slice(0, 8).map((id) => traceOf(id).then((res) => res));
        await waitFor('eight requests queued', () => tracePool.queued === 8);
        const busy = await traceOf(images[8]!);
        expect(busy.status).toBe(503);
        expect(busy.body).toEqual({ detail: 'The SVG converter is busy; try again shortly' });
        expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        release();
        for (const res of await Promise.all(waiting)) {
          expect(res.status).toBe(200);
          expect(res.headers['content-type']).toBe('image/svg+xml');
        }
      });

      test('a client that hangs up while waiting leaves the queue: its image is never traced', async () => {
        const req = http.get({
          host: '127.0.0.1',
          port: (gw.server.address() as AddressInfo).port,
          path: `/assets/${images[0]}/download?svg=true`,
          headers: { 'X-Api-Key': mine.apiKey },
        });
        req.on('error', () => undefined);
        await waitFor('the request queued', () => tracePool.queued === 1);
        const traced = tracePool.traced;
        req.destroy();
        await waitFor('the request gone from the queue', () => tracePool.queued === 0);
        release();
        await holding;
        expect(tracePool.running).toBe(0);
        expect(tracePool.traced).toBe(traced + 1); // the test's own trace, and no other
      });
    });
  });
});
