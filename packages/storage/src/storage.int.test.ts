import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createTestEnv, type TestEnv } from '@weft/testing';
import { isInvalidRange, isMissingObject, isStorageUnavailable } from './errors';
import { assetKeys } from './keys';
import { deleteObject, openObject, putObject, readObject } from './objects';
import { createUrlSigner } from './presign';
import { createStorage, type Storage } from './s3-storage';
import { uploadStream } from './upload';

let env: TestEnv;
let storage: Storage;
beforeAll(async () => {
  env = await createTestEnv();
  storage = createStorage(env.s3);
});
afterAll(async () => {
  storage?.close();
  await env?.cleanup();
});

const MiB = 1024 * 1024;

async function keys(): Promise<string[]> {
  const out = await storage.client.send(new ListObjectsV2Command({ Bucket: storage.bucket }));
  return (out.Contents ?? []).map((o) => o.Key!);
}

async function* chunks(total: number, size = 256 * 1024, failAt?: number) {
  for (let sent = 0; sent < total; sent += size) {
    if (failAt !== undefined && sent >= failAt) throw new Error('client went away');
    yield Buffer.alloc(Math.min(size, total - sent), sent % 251);
  }
}

async function collect(source: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of source) parts.push(part);
  return Buffer.concat(parts);
}

test('asset keys are made of ids only', () => {
  expect(assetKeys.original('o', 'a')).toBe('orgs/o/assets/a/original');
  expect(assetKeys.preview('o', 'a')).toBe('orgs/o/assets/a/preview.webp');
});

test('uploadStream stores a multipart body byte for byte', async () => {
  const total = 12 * MiB + 123;
  await uploadStream(storage, {
    key: 'big',
    body: Readable.from(chunks(total)),
    contentType: 'video/mp4',
    maxBytes: 20 * MiB,
  });
  const stored = await readObject(storage, 'big', 20 * MiB);
  expect(stored.length).toBe(total);
  expect(Buffer.compare(stored, await collect(chunks(total)))).toBe(0);
});

test('a body within one part is stored by one PUT, byte for byte', async () => {
  const total = MiB + 7;
  await uploadStream(storage, {
    key: 'small-streamed',
    body: Readable.from(chunks(total, 64 * 1024)),
    contentType: 'image/png',
    maxBytes: 20 * MiB,
  });
  const stored = await readObject(storage, 'small-streamed', 20 * MiB);
  expect(Buffer.compare(stored, await collect(chunks(total, 64 * 1024)))).toBe(0);
  const object = await openObject(storage, 'small-streamed');
  object.body.resume();
  expect(object.contentLength).toBe(total);
  // The stored type is what the store serves on a presigned URL (an asset's `url`).
  const res = await fetch(await createUrlSigner(storage, { ttlSeconds: 600 }).urlFor('small-streamed'));
  expect(res.headers.get('content-type')).toBe('image/png');
  await res.arrayBuffer();
});

test('Content-Disposition is stored with the object, by one PUT and by a multipart upload', async () => {
  for (const [key, total] of [
    ['attached-small', 1000],
    ['attached-big', 12 * MiB],
  ] as const) {
    await uploadStream(storage, {
      key,
      body: Readable.from(chunks(total)),
      contentType: 'application/octet-stream',
      contentDisposition: 'attachment',
      maxBytes: 20 * MiB,
    });
    const res = await fetch(await createUrlSigner(storage, { ttlSeconds: 600 }).urlFor(key));
    expect([res.headers.get('content-type'), res.headers.get('content-disposition')]).toEqual([
      'application/octet-stream',
      'attachment',
    ]);
    await res.arrayBuffer();
  }
});

test('servedAs: the store answers with the signed overrides, also where a CDN base is set', async () => {
  const servedAs = { contentType: 'text/plain', contentDisposition: `attachment; filename*=UTF-8''a%20(1).txt` };
  for (const signer of [
    createUrlSigner(storage, { ttlSeconds: 600 }),
    createUrlSigner(storage, { ttlSeconds: 600, publicBaseUrl: 'https://cdn.test/x/' }),
  ]) {
    const url = await signer.urlFor('small-streamed', servedAs);
    expect(url).not.toMatch(/^https:\/\/cdn\.test/);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.headers.get('content-disposition')).toBe(servedAs.contentDisposition);
    await res.arrayBuffer();
  }
});

test('a single PUT that cannot reach the store or finds no bucket fails as the SDK would', async () => {
  const unreachable = createStorage({ ...env.s3, endpoint: 'http://127.0.0.1:9' });
  const noBucket = createStorage({ ...env.s3, bucket: 'no-such-bucket-for-put' });
  try {
    const put = (to: Storage) =>
      uploadStream(to, { key: 'k', body: Readable.from(chunks(1000)), contentType: 'text/plain', maxBytes: MiB });
    expect(isStorageUnavailable(await put(unreachable).catch((e: unknown) => e))).toBe(true);
    const missing = await put(noBucket).catch((e: unknown) => e);
    expect(isMissingObject(missing)).toBe(true);
    expect((missing as Error).name).toBe('NoSuchBucket');
  } finally {
    unreachable.close();
    noBucket.close();
  }
});

test('a single PUT the store refuses once as unavailable is tried again', async () => {
  // Between us and the store, a proxy that answers the first PUT 503 SlowDown, as S3 does under load.
  const target = new URL(env.s3.endpoint!);
  let puts = 0;
  const proxy = http.createServer((req, res) => {
    if (req.method === 'PUT' && ++puts === 1) {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0"?><Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>');
      return;
    }
    const forward = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  const viaProxy = createStorage({ ...env.s3, endpoint: `http://127.0.0.1:${port}` });
  try {
    await uploadStream(viaProxy, {
      key: 'retried',
      body: Readable.from(chunks(3000, 1000)),
      contentType: 'text/plain',
      maxBytes: MiB,
    });
    expect(puts).toBe(2);
    expect(await collect(chunks(3000, 1000))).toEqual(await readObject(storage, 'retried', MiB));
  } finally {
    viaProxy.close();
    proxy.closeAllConnections();
    proxy.close();
  }
});

test('a read the store cuts short of its Content-Length fails, and never answers part of the object', async () => {
  let gets = 0;
  const store = http.createServer((req, res) => {
    gets++;
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '10' });
    res.write('0123');
    setTimeout(() => res.destroy(), 20);
  });
  await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', resolve));
  const { port } = store.address() as AddressInfo;
  const cutting = createStorage({ ...env.s3, endpoint: `http://127.0.0.1:${port}` });
  try {
    await expect(readObject(cutting, 'cut', MiB)).rejects.toThrow();
    expect(gets).toBeGreaterThan(0);
  } finally {
    cutting.close();
    store.closeAllConnections();
    store.close();
  }
});

test('a body that fails mid-way aborts the multipart upload and leaves nothing', async () => {
  const before = await keys();
  await expect(
    uploadStream(storage, {
      key: 'broken',
      body: Readable.from(chunks(12 * MiB, 256 * 1024, 7 * MiB)),
      contentType: 'video/mp4',
      maxBytes: 20 * MiB,
    }),
  ).rejects.toThrow();
  expect(await keys()).toEqual(before);
});

test('an aborted signal stops the upload', async () => {
  const aborter = new AbortController();
  const upload = uploadStream(storage, {
    key: 'aborted',
    body: Readable.from(chunks(12 * MiB)),
    contentType: 'video/mp4',
    maxBytes: 20 * MiB,
    signal: aborter.signal,
  });
  aborter.abort();
  await expect(upload).rejects.toThrow();
  expect(await keys()).not.toContain('aborted');
});

test('ranged reads, and the errors of missing objects and bad ranges', async () => {
  await putObject(storage, 'small', Buffer.from('0123456789'), 'text/plain');
  const part = await openObject(storage, 'small', 'bytes=2-4');
  expect(part.contentLength).toBe(3);
  expect(part.contentRange).toBe('bytes 2-4/10');
  const chunksRead: Buffer[] = [];
  for await (const c of part.body) chunksRead.push(c as Buffer);
  expect(Buffer.concat(chunksRead).toString()).toBe('234');
  await expect(readObject(storage, 'small', 5)).rejects.toThrow(/more than/);
  const missing = await openObject(storage, 'nope').catch((e: unknown) => e);
  expect(isMissingObject(missing)).toBe(true);
  const badRange = await openObject(storage, 'small', 'bytes=50-60').catch((e: unknown) => e);
  expect(isInvalidRange(badRange)).toBe(true);
  await deleteObject(storage, 'small');
  await deleteObject(storage, 'small');
});

test('presigned URLs work without credentials and stay stable within a window', async () => {
  await putObject(storage, 'orgs/o/assets/a/original', Buffer.from('hello'), 'text/plain');
  let now = Date.parse('2026-01-01T00:10:00Z');
  const signer = createUrlSigner(storage, { ttlSeconds: 3600, now: () => now });
  const url = await signer.urlFor('orgs/o/assets/a/original');
  now += 60_000;
  expect(await signer.urlFor('orgs/o/assets/a/original')).toBe(url);
  now += 3600_000;
  expect(await signer.urlFor('orgs/o/assets/a/original')).not.toBe(url);
  const live = createUrlSigner(storage, { ttlSeconds: 600 });
  const res = await fetch(await live.urlFor('orgs/o/assets/a/original'));
  expect(res.status).toBe(200);
  expect(await res.text()).toBe('hello');
});

test('a public endpoint: URLs are signed for the address clients use, not the one servers use', async () => {
  // Servers reach the store on 127.0.0.1 (compose: http://minio:9000), clients on localhost.
  const internal = new URL(env.s3.endpoint!);
  const publicEndpoint = `http://localhost:${internal.port}`;
  const outside = createStorage({ ...env.s3, publicEndpoint });
  try {
    await putObject(storage, 'orgs/o/assets/p/original', Buffer.from('public'), 'text/plain');
    const now = () => Date.parse('2026-01-01T00:10:00Z');
    const url = await createUrlSigner(outside, { ttlSeconds: 600, now }).urlFor('orgs/o/assets/p/original');
    const inside = await createUrlSigner(storage, { ttlSeconds: 600, now }).urlFor('orgs/o/assets/p/original');
    expect(url.startsWith(`${publicEndpoint}/`)).toBe(true);
    // Signed for that host (the host header is part of SigV4's canonical request), not
    // the internal URL with its host rewritten, which S3 and MinIO would refuse.
    const signature = (u: string) => new URL(u).searchParams.get('X-Amz-Signature');
    expect(new URL(url).searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(signature(url)).not.toBe(signature(inside));
    const live = await createUrlSigner(outside, { ttlSeconds: 600 }).urlFor('orgs/o/assets/p/original');
    const res = await fetch(live);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('public');
  } finally {
    outside.close();
  }
});

test('a CDN base makes plain URLs', async () => {
  const cdn = createUrlSigner(storage, { ttlSeconds: 60, publicBaseUrl: 'https://cdn.test/x/' });
  expect(await cdn.urlFor('orgs/o/assets/a b/original')).toBe('https://cdn.test/x/orgs/o/assets/a%20b/original');
});

test('an unreachable store is "unavailable"', async () => {
  const down = createStorage({ ...env.s3, endpoint: 'http://127.0.0.1:9' });
  try {
    const err = await putObject(down, 'k', Buffer.from('x'), 'text/plain').catch((e: unknown) => e);
    expect(isStorageUnavailable(err)).toBe(true);
    expect(isStorageUnavailable(new Error('bad request'))).toBe(false);
  } finally {
    down.close();
  }
});
