import { execFile } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { AssetSchema, ErrorBody, ValidationErrorBody } from '@weft/contracts';
import request from 'supertest';
import { expectSchema } from '../../testing/expect-schema';
import { GARBAGE, jpegBytes, listKeys, MP4_HEADER, PDF_BYTES, pngBytes, upload } from '../../testing/asset-fixtures';
import { startTestGateway, type TestGateway } from '../../testing/test-gateway';
import { AdmissionGate } from '@weft/admission';
import { waitFor } from '@weft/testing';
import { randomBytes } from 'node:crypto';

const MAX_BYTES = 7 * 1024 * 1024;

let gw: TestGateway;
let org: { id: string; apiKey: string };
beforeAll(async () => {
  // Small enough to exceed quickly, large enough for a multipart upload (5 MiB parts).
  gw = await startTestGateway({ ASSET_MAX_UPLOAD_BYTES: String(MAX_BYTES) });
  org = await gw.createOrg('uploader');
});
afterAll(() => gw.close());

/**
 * POST /assets/upload over a real socket, writing the multipart body in 64 KiB
 * chunks: with or without a Content-Length, optionally stopping after
 * `stopAfterBytes` to wait for an early answer.
 */
async function rawUpload(
  file: Buffer,
  { declareLength, stopAfterBytes }: { declareLength: boolean; stopAfterBytes?: number },
): Promise<{ status: number; body: unknown; sentBytes: number }> {
  const boundary = 'weft-test-boundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\n` +
      'Content-Type: image/png\r\n\r\n',
  );
  const body = Buffer.concat([head, file, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  const server = gw.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/assets/upload',
        headers: {
          'X-Api-Key': org.apiKey,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          ...(declareLength ? { 'Content-Length': String(body.length) } : {}),
        },
      });
      let sentBytes = 0;
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()), sentBytes });
        });
      });
      req.on('error', reject);
      const limit = stopAfterBytes ?? body.length;
      const writeMore = () => {
        while (sentBytes < limit) {
          const chunk = body.subarray(sentBytes, Math.min(limit, sentBytes + 64 * 1024));
          sentBytes += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', writeMore);
        }
        if (stopAfterBytes === undefined) req.end();
      };
      writeMore();
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

async function rowCount(): Promise<number> {
  return gw.deps.db.prisma.asset.count({ where: { organizationId: org.id } });
}

describe('POST /assets/upload: accepted files', () => {
  test('answers 200 with the full Asset, readable at once', async () => {
    const png = await pngBytes();
    const res = await upload(gw.app, org.apiKey, png, { partName: 'photo.png', externalId: 'up-1' });
    expect(res.status).toBe(200);
    const asset = expectSchema(AssetSchema, res.body);
    expect(asset).toMatchObject({
      external_id: 'up-1',
      asset_type: 'reference',
      media_type: 'image',
      media_extension: 'png',
      visibility: 'private',
      downloaded: false,
      agent_id: null,
      run_id: null,
    });
    // Not processed yet: an empty object, never null.
    expect(asset.asset_metadata).toEqual({});
    const again = await request(gw.app).get(`/assets/${asset.id}`).set('X-Api-Key', org.apiKey);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(asset.id);
    expect(again.body.asset_metadata).toEqual({});
    // The stored bytes are exactly the upload.
    const stored = await request(gw.app).get(`/assets/${asset.id}/download`).set('X-Api-Key', org.apiKey);
    expect(Buffer.compare(stored.body as Buffer, png)).toBe(0);
  });

  test.each([
    ['a PNG named .bin', () => pngBytes(), 'blob.bin', 'image', 'png'],
    ['a JPEG named .jpeg', () => jpegBytes(), 'x.jpeg', 'image', 'jpeg'],
    ['a JPEG without a name extension', () => jpegBytes(), 'camera', 'image', 'jpg'],
    ['a PDF', async () => PDF_BYTES, 'doc.pdf', 'file', 'pdf'],
    ['an MP4', async () => MP4_HEADER, 'clip.mp4', 'video', 'mp4'],
    ['JSON', async () => Buffer.from('{"a": [1, 2, 3]}'), 'data', 'file', 'json'],
    ['CSV', async () => Buffer.from('name,age\nada,36\nalan,41\n'), 'people', 'file', 'csv'],
    ['Markdown', async () => Buffer.from('# Title\n\nSome *text* and a [link](https://x.y).\n'), 'notes', 'file', 'md'],
    ['plain text', async () => Buffer.from('just some words\non two lines\n'), 'words', 'file', 'txt'],
    ['plain text named .csv', async () => Buffer.from('one line of text\n'), 'list.csv', 'file', 'csv'],
    [
      'SVG',
      async () => Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>'),
      'x',
      'image',
      'svg',
    ],
  ])('detects %s from its content', async (_what, bytes, name, mediaType, extension) => {
    const res = await upload(gw.app, org.apiKey, await bytes(), { partName: name, contentType: 'text/html' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ media_type: mediaType, media_extension: extension });
  });

  test('takes visibility and the display filename from the form', async () => {
    const res = await upload(gw.app, org.apiKey, await pngBytes(), {
      partName: 'ignored.png',
      filename: 'Shown name.png',
      visibility: 'public',
    });
    expect(res.status).toBe(200);
    expect(res.body.visibility).toBe('public');
    const row = await gw.deps.db.prisma.asset.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.filename).toBe('Shown name.png');
  });

  test('sanitises file names and never uses them in storage keys', async () => {
    const res = await upload(gw.app, org.apiKey, await pngBytes(), {
      partName: 'x.png',
      filename: '../../etc/pass\r\nX-Evil: 1\u202Egnp.png',
    });
    expect(res.status).toBe(200);
    const row = await gw.deps.db.prisma.asset.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.filename).toBe('passX-Evil_ 1gnp.png');
    expect(row.storageKey).toBe(`orgs/${org.id}/assets/${row.id}/original`);
    const dl = await request(gw.app).get(`/assets/${row.id}/download`).set('X-Api-Key', org.apiKey);
    expect(dl.headers['content-disposition']).toBe(
      `attachment; filename="passX-Evil_ 1gnp.png"; filename*=UTF-8''passX-Evil_%201gnp.png`,
    );
  });

  test('counts against the create rate-limit bucket', async () => {
    const res = await upload(gw.app, org.apiKey, await pngBytes());
    expect(res.headers['x-ratelimit-limit']).toBe(String(gw.config.RATE_LIMIT_UPLOAD_PER_MINUTE));
  });
});

describe('POST /assets/upload: refused files store nothing', () => {
  let before: { keys: number; rows: number };
  beforeEach(async () => {
    before = { keys: (await listKeys(gw.deps.storage)).length, rows: await rowCount() };
  });
  afterEach(async () => {
    expect((await listKeys(gw.deps.storage)).length).toBe(before.keys);
    expect(await rowCount()).toBe(before.rows);
  });

  test('garbage bytes: 400', async () => {
    const res = await upload(gw.app, org.apiKey, GARBAGE, { partName: 'photo.png', contentType: 'image/png' });
    expect(res.status).toBe(400);
    expectSchema(ErrorBody, res.body);
  });

  test('a supported format outside the contract (GIF): 400', async () => {
    const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
    expect((await upload(gw.app, org.apiKey, gif, { partName: 'a.gif' })).status).toBe(400);
  });

  test('an empty file: 400', async () => {
    expect((await upload(gw.app, org.apiKey, Buffer.alloc(0), { partName: 'empty.txt' })).status).toBe(400);
  });

  test('a name whose extension contradicts the content: 400', async () => {
    const res = await upload(gw.app, org.apiKey, PDF_BYTES, { partName: 'photo.png' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/png/);
  });

  test('a display filename contradicting the content (sent after the file): 400, object removed', async () => {
    const res = await request(gw.app)
      .post('/assets/upload')
      .set('X-Api-Key', org.apiKey)
      .attach('file', PDF_BYTES, 'doc.pdf')
      .field('filename', 'song.mp3');
    expect(res.status).toBe(400);
  });

  test('above ASSET_MAX_UPLOAD_BYTES in one part: 413', async () => {
    const big = Buffer.concat([await pngBytes(), Buffer.alloc(MAX_BYTES)]);
    const res = await upload(gw.app, org.apiKey, big, { partName: 'big.png' });
    expect(res.status).toBe(413);
    expectSchema(ErrorBody, res.body);
  });

  test('above the maximum after the multipart upload started (chunked, no length): 413, upload aborted', async () => {
    const keysBefore = await listKeys(gw.deps.storage);
    const big = Buffer.concat([await pngBytes(), Buffer.alloc(2 * MAX_BYTES)]);
    const res = await rawUpload(big, { declareLength: false });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ detail: expect.stringContaining('larger than') });
    // The parts already stored were aborted: nothing of it is left in the bucket.
    expect(await listKeys(gw.deps.storage)).toEqual(keysBefore);
  });

  test('a declared Content-Length that cannot fit: 413 before the body is read', async () => {
    const big = Buffer.concat([await pngBytes(), Buffer.alloc(3 * MAX_BYTES)]);
    const res = await rawUpload(big, { declareLength: true, stopAfterBytes: 64 * 1024 });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ detail: expect.stringContaining('larger than') });
    expect(res.sentBytes).toBeLessThan(big.length);
  });

  test('a declared length that cannot fit, from a client that sends it all before reading (fetch): it reads the 413', async () => {
    const { port } = gw.server.address() as AddressInfo;
    // In a process of its own: in this one, the client would read the answer in the
    // same turn of the event loop as the gateway closes, before any reset arrives.
    const client = `
      const [url, key, size] = process.argv.slice(1);
      (async () => {
        for (let i = 0; i < 3; i++) {
          const form = new FormData();
          form.append('file', new Blob([Buffer.alloc(Number(size))]), 'big.txt');
          try {
            const res = await fetch(url, { method: 'POST', headers: { 'X-Api-Key': key }, body: form });
            console.log(res.status, (await res.json()).detail);
          } catch (err) {
            console.log('failed', err.cause?.code ?? err.message);
          }
        }
      })();`;
    const { stdout } = await promisify(execFile)(process.execPath, [
      '-e',
      client,
      `http://127.0.0.1:${port}/assets/upload`,
      org.apiKey,
      String(3 * MAX_BYTES),
    ]);
    expect(stdout.trim().split('\n')).toEqual(Array(3).fill(`413 The file is larger than ${MAX_BYTES} bytes`));
  });

  test('external_id longer than 255: 422, and the key stays free', async () => {
    const long = 'k'.repeat(256);
    const res = await upload(gw.app, org.apiKey, await pngBytes(), { externalId: long });
    expect(res.status).toBe(422);
    const body = expectSchema(ValidationErrorBody, res.body);
    expect(body.detail[0]!.loc).toEqual(['body', 'external_id']);
  });

  test('external_id with a NUL character, or empty: 422, nothing stored', async () => {
    const keysBefore = await listKeys(gw.deps.storage);
    const nul = await upload(gw.app, org.apiKey, await pngBytes(), { externalId: 'ab\u0000cd' });
    expect(nul.status).toBe(422);
    expect(nul.body.detail[0]).toMatchObject({ loc: ['body', 'external_id'], type: 'string_nul' });
    const empty = await upload(gw.app, org.apiKey, await pngBytes(), { externalId: '' });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0]).toMatchObject({ loc: ['body', 'external_id'], type: 'string_too_short' });
    expect(await listKeys(gw.deps.storage)).toEqual(keysBefore);
  });

  test('no file part: 422', async () => {
    const res = await request(gw.app).post('/assets/upload').set('X-Api-Key', org.apiKey).field('visibility', 'public');
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'file']);
  });

  test('a file part without a filename (read as a text field): 422 saying so', async () => {
    const res = await request(gw.app).post('/assets/upload').set('X-Api-Key', org.apiKey).field('file', 'bytes');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'file'], msg: expect.stringContaining('filename') });
  });

  test('a JSON body instead of a form: 422', async () => {
    const res = await request(gw.app).post('/assets/upload').set('X-Api-Key', org.apiKey).send({ file: 'x' });
    expect(res.status).toBe(422);
  });

  test('a file in another field, or two files: 422', async () => {
    const png = await pngBytes();
    const other = await request(gw.app)
      .post('/assets/upload')
      .set('X-Api-Key', org.apiKey)
      .attach('image', png, 'a.png');
    expect(other.status).toBe(422);
    const two = await request(gw.app)
      .post('/assets/upload')
      .set('X-Api-Key', org.apiKey)
      .attach('file', png, 'a.png')
      .attach('file', png, 'b.png');
    expect(two.status).toBe(422);
  });

  test('an invalid visibility: 422', async () => {
    expect((await upload(gw.app, org.apiKey, await pngBytes(), { visibility: 'everyone' })).status).toBe(422);
  });

  test('without credentials: 401', async () => {
    const res = await request(gw.app)
      .post('/assets/upload')
      .attach('file', await pngBytes(), 'a.png');
    expect(res.status).toBe(401);
  });
});

describe('POST /assets/upload: external_id', () => {
  test('reusing a key: 409 with existing_id, the second object removed', async () => {
    const first = await upload(gw.app, org.apiKey, await pngBytes(), { externalId: 'dup' });
    expect(first.status).toBe(200);
    const keys = (await listKeys(gw.deps.storage)).length;
    const second = await upload(gw.app, org.apiKey, await jpegBytes(), { externalId: 'dup' });
    expect(second.status).toBe(409);
    expect(expectSchema(ErrorBody, second.body).existing_id).toBe(first.body.id);
    expect((await listKeys(gw.deps.storage)).length).toBe(keys);
  });

  test('concurrent uploads with one key: exactly one 200, no orphan objects', async () => {
    const png = await pngBytes();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => upload(gw.app, org.apiKey, png, { externalId: 'race' })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    const winner = responses.find((r) => r.status === 200)!.body.id as string;
    for (const r of responses) if (r.status === 409) expect(r.body.existing_id).toBe(winner);
    const raceKeys = (await listKeys(gw.deps.storage)).filter((k) => k.includes(winner));
    expect(raceKeys).toEqual([`orgs/${org.id}/assets/${winner}/original`]);
    const rows = await gw.deps.db.prisma.asset.findMany({ where: { organizationId: org.id } });
    const keys = new Set(await listKeys(gw.deps.storage));
    for (const row of rows) expect(keys.has(row.storageKey)).toBe(true);
    expect([...keys].filter((k) => k.endsWith('/original')).length).toBe(rows.length);
  });

  test('uploads have their own key space per organization', async () => {
    const other = await gw.createOrg('other uploader');
    const png = await pngBytes();
    expect((await upload(gw.app, org.apiKey, png, { externalId: 'shared-key' })).status).toBe(200);
    expect((await upload(gw.app, other.apiKey, png, { externalId: 'shared-key' })).status).toBe(200);
  });
});

describe('POST /assets/upload: storage unavailable', () => {
  test('503, and no row', async () => {
    // A port nothing listens on: every S3 request is refused.
    const down = await gw.startSibling({
      ASSET_MAX_UPLOAD_BYTES: String(MAX_BYTES),
      S3_ENDPOINT: 'http://127.0.0.1:9',
    });
    try {
      const rows = await rowCount();
      const res = await upload(down.app, org.apiKey, await pngBytes(), { externalId: 'while-down' });
      expect(res.status).toBe(503);
      expectSchema(ErrorBody, res.body);
      expect(await rowCount()).toBe(rows);
      // The key was not claimed.
      expect((await upload(gw.app, org.apiKey, await pngBytes(), { externalId: 'while-down' })).status).toBe(200);
    } finally {
      await down.close();
    }
  });
});

describe('POST /assets/upload: the memory uploads may hold on one instance', () => {
  const MiB = 1024 * 1024;
  let original: AdmissionGate;
  let memory: AdmissionGate;
  beforeEach(() => {
    original = gw.deps.uploadMemory;
    // Room for one 6 MiB upload at a time, and one more waiting.
    memory = new AdmissionGate(8 * MiB, 1);
    gw.deps.uploadMemory = memory;
  });
  afterEach(() => {
    gw.deps.uploadMemory = original;
  });

  /** An upload of `file` over its own socket, with its Content-Length; its first `firstBytes` are sent at once, the rest on `finish()`. */
  function heldUpload(file: Buffer, firstBytes: number, target: TestGateway = gw) {
    const boundary = 'weft-held-boundary';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="held.mp4"\r\n` +
          'Content-Type: video/mp4\r\n\r\n',
      ),
      file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const req = http.request({
      host: '127.0.0.1',
      port: (target.server.address() as AddressInfo).port,
      method: 'POST',
      path: '/assets/upload',
      headers: {
        'X-Api-Key': org.apiKey,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(body.length),
      },
    });
    const answer = new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: unknown }>(
      (resolve, reject) => {
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            req.destroy();
            const text = Buffer.concat(chunks).toString();
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined });
          });
        });
        req.on('error', reject);
      },
    );
    req.write(body.subarray(0, firstBytes));
    return {
      answer,
      finish: () => req.end(body.subarray(firstBytes)),
      hangUp: () => req.destroy(),
    };
  }

  const video = (mib: number) => Buffer.concat([MP4_HEADER, randomBytes(mib * MiB - MP4_HEADER.length)]);

  test('an upload that does not fit waits its turn; one more is refused with 503 and Retry-After, storing nothing', async () => {
    const rows = await rowCount();
    const keys = (await listKeys(gw.deps.storage)).length;
    const first = heldUpload(video(6), MiB);
    await waitFor('the first upload under way', () => memory.inUse > 0);
    const second = heldUpload(video(6), MiB);
    await waitFor('the second upload waiting', () => memory.waiting === 1);
    const third = heldUpload(video(1), 64 * 1024);
    third.finish();
    const refused = await third.answer;
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ detail: 'Too many uploads in progress; try again shortly' });
    expect(refused.headers['retry-after']).toBe('5');
    expect(await rowCount()).toBe(rows);
    // The second is still waiting, its body unread, until the first is done.
    expect(memory.waiting).toBe(1);
    first.finish();
    second.finish();
    const [a, b] = await Promise.all([first.answer, second.answer]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await rowCount()).toBe(rows + 2);
    expect((await listKeys(gw.deps.storage)).length).toBe(keys + 2);
    expect([memory.inUse, memory.waiting]).toEqual([0, 0]);
  });

  test('an upload whose client hangs up while it waits gives up its turn, leaving nothing behind', async () => {
    const rows = await rowCount();
    const keys = (await listKeys(gw.deps.storage)).length;
    const first = heldUpload(video(6), MiB);
    await waitFor('the first upload under way', () => memory.inUse > 0);
    const second = heldUpload(video(6), MiB);
    second.answer.catch(() => undefined);
    await waitFor('the second upload waiting', () => memory.waiting === 1);
    // Its socket is paused (its body waits unread), so the gateway learns of
    // the hang-up when its turn comes and it starts reading.
    second.hangUp();
    first.finish();
    expect((await first.answer).status).toBe(200);
    await waitFor('every reservation given back', () => memory.inUse === 0 && memory.waiting === 0);
    expect(await rowCount()).toBe(rows + 1);
    expect((await listKeys(gw.deps.storage)).length).toBe(keys + 1);
  });

  test('an upload whose client stops sending is given up with 408: nothing stored, its memory given back', async () => {
    const strict = await gw.startSibling({ ASSET_MAX_UPLOAD_BYTES: String(MAX_BYTES), HTTP_BODY_STALL_MS: '1000' });
    try {
      const rows = await rowCount();
      const keys = (await listKeys(gw.deps.storage)).length;
      // 6 MiB declared, past the 5 MiB of one part: a multipart upload is under way when the client stops.
      const stalled = heldUpload(video(6), 5.5 * MiB, strict);
      const answer = await stalled.answer;
      expect(answer.status).toBe(408);
      expect(answer.body).toEqual({ detail: 'Request body timed out: no byte for 1 s' });
      await waitFor('the reservation given back', () => strict.deps.uploadMemory.inUse === 0);
      expect(await rowCount()).toBe(rows);
      await waitFor('no object left', async () => (await listKeys(gw.deps.storage)).length === keys);
    } finally {
      await strict.close();
    }
  });
});
